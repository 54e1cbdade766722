export { MemoryPersistence, MemoryStore, createMemoryPersistence } from './memory-adapter.ts';
export type { MemoryPersistenceOptions } from './memory-adapter.ts';

export { FilePersistence, openFilePersistence } from './file/index.ts';
export type { FilePersistenceOptions } from './file/index.ts';
export { PostgresPersistence, createPostgresPersistence } from './postgres/index.ts';
export type { PostgresPersistenceOptions } from './postgres/index.ts';
export { openPersistence } from './open-persistence.ts';
export type { OpenPersistenceOptions } from './open-persistence.ts';
