export { PostgresPersistence, createPostgresPersistence } from './postgres-persistence.ts';
export type { PostgresPersistenceOptions } from './postgres-persistence.ts';
export { migratePostgres, postgresNames } from './postgres-schema.ts';
export type { PostgresNames } from './postgres-schema.ts';
