export { PostgresPersistence } from './postgres-persistence.ts';
