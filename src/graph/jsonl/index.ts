export { loadJsonl, parseJsonl, withJsonlLine } from './parse-jsonl.ts';
export { IMPORT_BATCH_SIZE, importJsonlFile } from './import-jsonl.ts';
export type { ImportProgress } from './import-jsonl.ts';
export { exportJsonl } from './export-jsonl.ts';
