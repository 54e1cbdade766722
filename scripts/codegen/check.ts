import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkGenerated, formatCheckResult } from './check-generated.ts';
import { REPO_ROOT } from './generate.ts';

// `npm run codegen:check [-- --root DIR]`: exit 1, listing the files, when generated/ is not what codegen writes.
const { values } = parseArgs({ options: { root: { type: 'string' } } });
const result = await checkGenerated({ root: path.resolve(values.root ?? REPO_ROOT) });
const report = formatCheckResult(result);
if (result.ok) console.log(report);
else console.error(report);
process.exitCode = result.ok ? 0 : 1;
