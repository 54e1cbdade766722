import { MemoryPersistence, MemoryStore } from '../../../src/graph/persist/index.ts';
import { runPersistenceContract } from './contract-suite.ts';

runPersistenceContract('memory', async () => {
  const store = new MemoryStore();
  return {
    adapter: new MemoryPersistence({ store }),
    reopen: async () => new MemoryPersistence({ store }),
    peer: async () => new MemoryPersistence({ store }),
  };
});
