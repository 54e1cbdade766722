import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');
/** The built CLI every replica runs, as an operator would (`npm run build` makes it). */
export const TOOLGRAPH_JS = join(ROOT, 'dist/src/cli/toolgraph.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function stale(): boolean {
  if (!existsSync(TOOLGRAPH_JS)) return true;
  // The newest output, not the CLI's own: a build may leave an unchanged file's time alone.
  const built = newestMtime(join(ROOT, 'dist/src'));
  return newestMtime(join(ROOT, 'src')) > built || newestMtime(join(ROOT, 'generated')) > built;
}

/**
 * Builds dist/ when it is missing or older than src/ (test files running at once take turns through
 * a lock directory), so the replicas run the code under test. A failed build fails the test,
 * with tsc's output.
 */
export async function ensureDist(): Promise<string> {
  if (!stale()) return TOOLGRAPH_JS;
  const lock = join(ROOT, '.tmp/dist-build.lock');
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than three minutes belongs to a build that died.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 180_000) rmdirSync(lock);
      if (Date.now() > deadline) throw new Error('test/replicas: waited three minutes for another test file to build dist/');
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (stale()) {
      try {
        execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'pipe' });
      } catch (error) {
        const out = (error as { stdout?: Buffer }).stdout?.toString() ?? '';
        throw new Error(`test/replicas needs dist/ (the replicas run dist/src/cli/toolgraph.js) and \`npm run build\` failed:\n${out}`);
      }
    }
  } finally {
    rmdirSync(lock);
  }
  return TOOLGRAPH_JS;
}
