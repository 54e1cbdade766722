export { MemoryPersistence, MemoryStore, createMemoryPersistence } from './memory-adapter.ts';
export type { MemoryPersistenceOptions } from './memory-adapter.ts';
export type { GraphSnapshot, LoadedState, LogRecord, PersistenceAdapter } from './contract.ts';
