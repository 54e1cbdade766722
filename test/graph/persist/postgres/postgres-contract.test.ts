import { describe } from 'vitest';
import { PostgresPersistence } from '../../../../src/graph/persist/postgres/index.ts';
import { runPersistenceContract } from '../contract-suite.ts';
import { SKIP_MESSAGE, TEST_DATABASE_URL, dropSchema, freshSchema } from './test-database.ts';

describe.skipIf(!TEST_DATABASE_URL)(TEST_DATABASE_URL ? 'postgres persistence' : SKIP_MESSAGE, () => {
  runPersistenceContract('postgres', async () => {
    const schema = freshSchema();
    const open = async (): Promise<PostgresPersistence> => new PostgresPersistence({ connectionString: TEST_DATABASE_URL!, schema, maxConnections: 3 });
    return { adapter: await open(), reopen: open, peer: open, cleanup: () => dropSchema(schema) };
  });
});
