export { FileStateStore } from './file-state-store.ts';
export { GuardedStateStore } from './guarded-state-store.ts';
export { MemoryStateStore } from './memory-state-store.ts';
export { openStateStore } from './open-state-store.ts';
export { PostgresStateStore } from './postgres-state-store.ts';
export type { StateStore } from './state-store.ts';
