import path from 'node:path';
import { parseArgs } from 'node:util';
import { assertGeneratedDir, generateAll, REPO_ROOT, writeGenerated } from './generate.ts';

// `npm run codegen [-- --out DIR] [--root DIR]`: regenerates every file of generated/ from specs/.
const { values } = parseArgs({ options: { out: { type: 'string' }, root: { type: 'string' } } });
const root = path.resolve(values.root ?? REPO_ROOT);
const outDir = path.resolve(values.out ?? path.join(root, 'generated'));
const started = performance.now();
await assertGeneratedDir(outDir);
const files = await generateAll({ root });
await writeGenerated(outDir, files);
console.log(`codegen: wrote ${files.length} files to ${path.relative(process.cwd(), outDir) || '.'} in ${Math.round(performance.now() - started)} ms`);
