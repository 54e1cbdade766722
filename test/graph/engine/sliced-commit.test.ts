import { afterEach, describe, expect, it } from 'vitest';
import { GraphEngine, cloneRecordSteps, recordJsonSteps, type LogRecord, type MutationInput, type PersistenceAdapter } from '../../../src/graph/engine/index.ts';
import { FilePersistence, MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Issue 15, item 7 (fuzzer finding: `MATCH (a:Leaf) SET a.tmp = $p` committed 10,000 updates in one
// synchronous step and stalled /healthz ~600 ms): a batch at the write caps is planned and encoded
// (or copied) for the log in slices, turning the event loop meanwhile, and is still applied at once.
const NODES = 20_000;
let engine: GraphEngine | undefined;
let dir: string | undefined;

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function filled(persistence: PersistenceAdapter): Promise<GraphEngine> {
  const opened = await GraphEngine.open({ persistence, snapshotEvery: 0 });
  await opened.createGraph('g');
  for (let start = 0; start < NODES; start += 5_000) {
    await opened.commit({ graph: 'g', mutations: Array.from({ length: 5_000 }, (_, i) => ({ op: 'createNode', id: `n${start + i}`, label: 'Leaf', props: { n: start + i } }) as const) });
  }
  return opened;
}

/**
 * Commits 20,000 updates (one per node, the change cap) while a setImmediate loop counts the turns of
 * the event loop and, at each, how many nodes show the new property: a commit that holds the loop
 * lets it turn at most once; readers must only ever see none of the batch or all of it.
 */
async function commitWatched(opened: GraphEngine): Promise<{ turns: number; seen: Set<number> }> {
  const value = 'v'.repeat(200);
  const mutations: MutationInput[] = Array.from({ length: NODES }, (_, i) => ({ op: 'updateNode', id: `n${i}`, set: { tmp: value } }));
  const view = opened.view('g');
  const seen = new Set<number>();
  let turns = 0;
  let running = true;
  const spin = (): void => {
    if (!running) return;
    turns++;
    let updated = 0;
    for (let i = 0; i < NODES; i += 1_000) if (view.node(`n${i}`)?.props['tmp'] !== undefined) updated++;
    seen.add(updated);
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    await opened.commit({ graph: 'g', mutations });
  } finally {
    running = false;
  }
  return { turns, seen };
}

describe('a commit at the write caps', () => {
  it('turns the event loop while it is planned and copied for the memory log, and readers see it whole or not at all', async () => {
    engine = await filled(new MemoryPersistence());
    const { turns, seen } = await commitWatched(engine);
    expect(turns).toBeGreaterThan(2);
    expect([...seen].every((n) => n === 0 || n === NODES / 1_000)).toBe(true);
    expect(engine.view('g').node('n19999')?.props['tmp']).toBe('v'.repeat(200));
  });

  it('is encoded for the file log in slices that write exactly what JSON.stringify writes, and replays', async () => {
    const record: LogRecord = { kind: 'batch', batch: { graph: 'g', version: 7, mutations: Array.from({ length: 1_000 }, (_, i) => ({ op: 'updateNode', id: `n${i}`, set: { s: `é"\\${i}`, n: i } }) as const), committedAt: '2025-01-01T00:00:00.000Z' } };
    let yields = 0;
    for (const steps of [recordJsonSteps(record), cloneRecordSteps(record)]) {
      let next = steps.next();
      for (; !next.done; next = steps.next()) yields++;
      if (typeof next.value === 'string') expect(next.value).toBe(JSON.stringify(record));
      else expect(next.value).toEqual(record);
    }
    expect(yields).toBeGreaterThan(20);
    dir = mkdtempSync(join(tmpdir(), 'tg-sliced-commit-'));
    engine = await filled(await FilePersistence.open({ directory: dir }));
    const { seen } = await commitWatched(engine);
    expect([...seen].every((n) => n === 0 || n === NODES / 1_000)).toBe(true);
    await engine.close();
    engine = await GraphEngine.open({ persistence: await FilePersistence.open({ directory: dir }) });
    expect(engine.view('g').version).toBe(NODES / 5_000 + 1);
    expect(engine.view('g').node('n12345')?.props['tmp']).toBe('v'.repeat(200));
  });
});
