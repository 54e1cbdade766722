export { MemoryPersistence, MemoryStore } from './memory-adapter.ts';

export { FilePersistence } from './file/index.ts';
export { PostgresPersistence } from './postgres/index.ts';
export { openPersistence } from './open-persistence.ts';
