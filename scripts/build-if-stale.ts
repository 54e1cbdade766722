/**
 * Builds dist/ with tsc when its inputs changed since the last build, and otherwise does nothing, so
 * `npm start` (its prestart) listens at once on a built checkout, e.g. right after `npm ci`, whose
 * `prepare` built it.
 * Usage: node scripts/build-if-stale.ts [--force] [--check]
 *   (none)   builds when stale, saying so on stderr; prints nothing when dist/ is current
 *   --force  builds whatever the stamp says (`npm run build`)
 *   --check  builds nothing; exits 1 when dist/ is stale, 0 when it is current
 *
 * The inputs are every file under src/ and generated/, tsconfig*.json and package.json. Their
 * fingerprint is the SHA-256 of each one's path, size and modification time, taken before tsc runs
 * (an edit made during a build makes the next run build again) and written to dist/.build-stamp once
 * tsc succeeded. Any difference counts: an edited, added, removed or renamed file, and also a file
 * whose time went backwards (a checkout or a copy keeping old times), which a "newer than the stamp"
 * rule would miss. Only metadata is read, so the check costs a few milliseconds.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const STAMP_FILE = 'dist/.build-stamp';
/** What `npm start` runs: without it the stamp would say nothing about what there is to start. */
const ENTRY = 'dist/src/cli/toolgraph.js';
const INPUT_DIRS = ['src', 'generated'];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The paths (relative to `root`) whose content decides what tsc writes to dist/. */
export function buildInputs(root: string): string[] {
  const top = readdirSync(root).filter((name) => /^tsconfig.*\.json$/.test(name) || name === 'package.json').map((name) => join(root, name));
  return [...top, ...INPUT_DIRS.flatMap((dir) => filesUnder(join(root, dir)))].map((path) => relative(root, path)).sort();
}

/** SHA-256 over every input's path, size and modification time. */
export function inputsFingerprint(root: string): string {
  const hash = createHash('sha256');
  for (const path of buildInputs(root)) {
    const stat = statSync(join(root, path), { bigint: true });
    hash.update(`${path}\0${stat.size}\0${stat.mtimeNs}\n`);
  }
  return hash.digest('hex');
}

function stampedFingerprint(root: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8')) as { inputs?: unknown }).inputs as string | undefined;
  } catch {
    return undefined;
  }
}

/** Whether dist/ must be built again: no entry point, no stamp, or inputs that differ from the stamped ones. */
export function isStale(root: string, fingerprint = inputsFingerprint(root)): boolean {
  return !existsSync(join(root, ENTRY)) || stampedFingerprint(root) !== fingerprint;
}

export interface BuildIfStaleOptions {
  readonly force?: boolean;
  /** Runs the build in `root`; returns its exit status. Default: tsc -p tsconfig.build.json on this Node. */
  readonly build?: (root: string) => number;
}

function tsc(root: string): number {
  const result = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  return result.status ?? 1;
}

/** Builds when stale (or forced) and stamps the inputs the build read; returns whether it built and the build's status. */
export function buildIfStale(root: string, options: BuildIfStaleOptions = {}): { built: boolean; status: number } {
  const fingerprint = inputsFingerprint(root);
  if (!options.force && !isStale(root, fingerprint)) return { built: false, status: 0 };
  const status = (options.build ?? tsc)(root);
  if (status === 0) writeFileSync(join(root, STAMP_FILE), `${JSON.stringify({ inputs: fingerprint, builtAt: new Date().toISOString() })}\n`);
  return { built: true, status };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  if (args.includes('--check')) {
    const stale = isStale(ROOT);
    process.stdout.write(stale ? 'dist/ is stale: npm run build\n' : 'dist/ is current\n');
    process.exitCode = stale ? 1 : 0;
  } else {
    // Silent when there is nothing to do, so `npm start` prints what the server prints.
    const force = args.includes('--force');
    const outcome = buildIfStale(ROOT, {
      force,
      build: (root) => {
        if (!force) process.stderr.write('dist/ is older than its inputs: building it (tsc -p tsconfig.build.json)\n');
        return tsc(root);
      },
    });
    process.exitCode = outcome.status;
  }
}
