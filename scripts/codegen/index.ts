export { checkGenerated, formatCheckResult } from './check-generated.ts';
export type { CheckOptions, CheckResult } from './check-generated.ts';
export { compareTrees, listFiles } from './compare-trees.ts';
export type { TreeDifference } from './compare-trees.ts';
export { assertGeneratedDir, generateAll, INDEX_FILE, REPO_ROOT, writeGenerated } from './generate.ts';
export type { GenerateOptions } from './generate.ts';
export type { GeneratedFile } from './generated-file.ts';
export { GENERATOR, headerFor } from './header.ts';
