export { FileStateStore } from './file-state-store.ts';
export { MemoryStateStore } from './memory-state-store.ts';
export { openStateStore } from './open-state-store.ts';
export type { OpenStateStoreOptions } from './open-state-store.ts';
export { PostgresStateStore } from './postgres-state-store.ts';
export type { PostgresStateStoreOptions } from './postgres-state-store.ts';
export { MAX_KEY_LENGTH, SPACE_NAME } from './state-store.ts';
export type { StateStore } from './state-store.ts';
