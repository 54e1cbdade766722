import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilePersistence } from '../../../../src/graph/persist/file/index.ts';
import { runPersistenceContract } from '../contract-suite.ts';

runPersistenceContract('file', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-file-contract-'));
  return {
    adapter: await FilePersistence.open({ directory: dataDir }),
    reopen: () => FilePersistence.open({ directory: dataDir }),
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
});

// The same contract with a segment per write, so compaction runs after every snapshot.
runPersistenceContract('file (tiny segments)', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-file-contract-'));
  return {
    adapter: await FilePersistence.open({ directory: dataDir, segmentBytes: 1 }),
    reopen: () => FilePersistence.open({ directory: dataDir, segmentBytes: 1 }),
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
});
