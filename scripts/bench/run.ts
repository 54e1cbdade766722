// `npm run bench -- [suite ...] [--out DIR]`: runs benchmark suites one after another (never in parallel:
// the machines are small and noisy). Each suite prints a table of ratios against a peer measured in the
// same run; with --out DIR each also writes DIR/<script>.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const SUITES: Record<string, readonly string[]> = {
  catalogue: ['catalogue.ts'],
  engine: ['engine.ts', 'persist.ts'],
};

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = outIndex >= 0 ? args[outIndex + 1] : undefined;
if (outIndex >= 0 && !outDir) {
  process.stderr.write('--out needs a directory\n');
  process.exit(2);
}
const names = args.filter((_arg, i) => outIndex < 0 || (i !== outIndex && i !== outIndex + 1));
const chosen = names.length > 0 ? names : Object.keys(SUITES);
for (const name of chosen) {
  if (!SUITES[name]) {
    process.stderr.write(`unknown bench suite ${JSON.stringify(name)}; known: ${Object.keys(SUITES).join(', ')}\n`);
    process.exit(2);
  }
}
if (outDir) mkdirSync(outDir, { recursive: true });

let failed = false;
for (const name of chosen) {
  for (const script of SUITES[name]!) {
    process.stdout.write(`\n== ${name}: ${script} ==\n`);
    const scriptArgs = [join(import.meta.dirname, script)];
    if (outDir) scriptArgs.push('--out', join(outDir, script.replace(/\.ts$/, '.json')));
    const result = spawnSync(process.execPath, scriptArgs, { stdio: 'inherit' });
    if (result.status !== 0) {
      failed = true;
      process.stderr.write(`${script} exited with ${result.status ?? result.signal}\n`);
    }
  }
}
process.exit(failed ? 1 : 0);
