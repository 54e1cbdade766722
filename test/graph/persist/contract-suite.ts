import { describe, expect, it } from 'vitest';
import type { CommittedBatch } from '../../../src/graph/engine/index.ts';
import { readSnapshot, snapshotStream, type GraphSnapshot, type LogRecord, type PersistenceAdapter } from '../../../src/graph/engine/index.ts';

/**
 * The persistence contract as tests. Every adapter runs it:
 *   runPersistenceContract('file', async () => ({ adapter, reopen, peer?, cleanup }))
 * `reopen` opens a fresh adapter over the same storage (a restart); `peer`, when given, opens a
 * second live adapter over the same storage (another instance) for the follow tests.
 */
export interface ContractHarness {
  adapter: PersistenceAdapter;
  reopen(): Promise<PersistenceAdapter>;
  peer?(): Promise<PersistenceAdapter>;
  cleanup?(): Promise<void>;
}

const AT = '2026-11-22T00:00:00.000Z';

export function createRecord(graph: string): LogRecord {
  return { kind: 'createGraph', graph, version: 0, at: AT };
}

export function batchRecord(graph: string, version: number, id = `n${version}`): LogRecord {
  const batch: CommittedBatch = {
    graph, version, committedAt: AT,
    mutations: [
      { op: 'createNode', id, label: 'Person', props: { name: `P${version}`, age: version, score: 1.5, tags: ['a', 'b'], ok: true } },
    ],
  };
  return { kind: 'batch', batch };
}

function snapshotOf(graph: string, version: number): GraphSnapshot {
  const nodes = [];
  for (let v = 1; v <= version; v++) nodes.push({ id: `n${v}`, label: 'Person', props: { name: `P${v}`, age: v, score: 1.5, tags: ['a', 'b'], ok: true } });
  return {
    graph, version, nodes, edges: version >= 2 ? [{ src: 'n1', tgt: 'n2', type: 'KNOWS' }] : [], at: AT,
    catalogue: {
      labels: [{ label: 'Person', properties: { age: 'Int', name: 'String', ok: 'Boolean', score: 'Float', tags: '[String]' } }],
      edgeTypes: version >= 2 ? [{ type: 'KNOWS', pairs: [{ src: 'Person', tgt: 'Person' }] }] : [],
    },
  };
}

function versionsOf(records: readonly LogRecord[], graph: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const r of records) {
    if (r.kind === 'batch' && r.batch.graph === graph) out.push(r.batch.version);
    else if (r.kind !== 'batch' && r.graph === graph) out.push(r.kind);
  }
  return out;
}

export function runPersistenceContract(name: string, makeHarness: () => Promise<ContractHarness>): void {
  describe(`persistence contract: ${name}`, () => {
    async function withHarness(fn: (h: ContractHarness) => Promise<void>): Promise<void> {
      const h = await makeHarness();
      try {
        await fn(h);
      } finally {
        await h.adapter.close().catch(() => undefined);
        await h.cleanup?.();
      }
    }

    it('starts empty', () => withHarness(async ({ adapter }) => {
      expect(typeof adapter.kind).toBe('string');
      const state = await adapter.load();
      expect(state.snapshots).toEqual([]);
      expect(state.records).toEqual([]);
    }));

    it('gives back appended records in commit order, unchanged, after a restart', () => withHarness(async (h) => {
      await h.adapter.load();
      const records = [createRecord('g1'), batchRecord('g1', 1), createRecord('g2'), batchRecord('g2', 1), batchRecord('g1', 2)];
      for (const r of records) await h.adapter.append(r);
      await h.adapter.close();
      const reopened = await h.reopen();
      try {
        const state = await reopened.load();
        expect(state.snapshots).toEqual([]);
        expect(state.records).toEqual(records);
      } finally {
        await reopened.close();
      }
    }));

    it('refuses a second batch with the same (graph, version) and stores nothing for it', () => withHarness(async (h) => {
      await h.adapter.load();
      await h.adapter.append(createRecord('g'));
      await h.adapter.append(batchRecord('g', 1));
      await expect(h.adapter.append(batchRecord('g', 1, 'other'))).rejects.toMatchObject({ code: 'TG_VERSION_CONFLICT' });
      await h.adapter.append(batchRecord('g', 2));
      await h.adapter.close();
      const reopened = await h.reopen();
      try {
        const state = await reopened.load();
        expect(state.records).toEqual([createRecord('g'), batchRecord('g', 1), batchRecord('g', 2)]);
      } finally {
        await reopened.close();
      }
    }));

    it('refuses createGraph of a live graph, and batches or drops of a missing one', () => withHarness(async ({ adapter }) => {
      await adapter.load();
      await adapter.append(createRecord('g'));
      await expect(adapter.append(createRecord('g'))).rejects.toMatchObject({ code: 'TG_GRAPH_EXISTS' });
      await expect(adapter.append(batchRecord('nope', 1))).rejects.toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
      await expect(adapter.append({ kind: 'dropGraph', graph: 'nope', at: AT })).rejects.toMatchObject({ code: 'TG_GRAPH_NOT_FOUND' });
    }));

    it('forgets a dropped graph, and lets its name start over', () => withHarness(async (h) => {
      await h.adapter.load();
      await h.adapter.append(createRecord('g'));
      await h.adapter.append(batchRecord('g', 1));
      await h.adapter.append(batchRecord('g', 2));
      await h.adapter.writeSnapshot(snapshotStream(snapshotOf('g', 2)));
      await h.adapter.append({ kind: 'dropGraph', graph: 'g', at: AT });
      await h.adapter.append(createRecord('g'));
      await h.adapter.append(batchRecord('g', 1, 'fresh'));
      await h.adapter.close();
      const reopened = await h.reopen();
      try {
        const state = await reopened.load();
        expect(state.snapshots).toEqual([]);
        // A dropped incarnation may be left out entirely or end with its dropGraph; the new one is whole.
        const tail = versionsOf(state.records, 'g');
        expect(tail.slice(-2)).toEqual(['createGraph', 1]);
        expect(tail.filter((v) => v === 'createGraph').length).toBe(tail.includes('dropGraph') ? 2 : 1);
        const last = state.records.at(-1);
        expect(last?.kind === 'batch' && last.batch.mutations[0]).toMatchObject({ id: 'fresh' });
      } finally {
        await reopened.close();
      }
    }));

    it('loads the latest snapshot and only the records after it', () => withHarness(async (h) => {
      await h.adapter.load();
      await h.adapter.append(createRecord('g'));
      await h.adapter.append(createRecord('other'));
      for (let v = 1; v <= 4; v++) await h.adapter.append(batchRecord('g', v));
      // One node or edge per chunk: several chunks of each kind.
      await h.adapter.writeSnapshot(snapshotStream(snapshotOf('g', 2), 1, 1));
      await h.adapter.writeSnapshot(snapshotStream(snapshotOf('g', 1), 1, 1)); // older: ignored
      await h.adapter.append(batchRecord('g', 5));
      await h.adapter.close();
      const reopened = await h.reopen();
      try {
        const state = await reopened.load();
        expect(await Promise.all(state.snapshots.map(readSnapshot))).toEqual([snapshotOf('g', 2)]);
        await state.release?.();
        expect(versionsOf(state.records, 'g')).toEqual([3, 4, 5]);
        expect(versionsOf(state.records, 'other')).toEqual(['createGraph']);
      } finally {
        await reopened.close();
      }
    }));

    it('refuses calls after close with TG_STORAGE_FAILED', () => withHarness(async ({ adapter }) => {
      await adapter.load();
      await adapter.close();
      await expect(adapter.append(createRecord('g'))).rejects.toMatchObject({ code: 'TG_STORAGE_FAILED' });
    }));

    it('delivers records appended by another instance to followers, in order, not its own', () => withHarness(async (h) => {
      if (!h.adapter.follow || !h.peer) {
        expect(h.adapter.follow === undefined || h.peer === undefined).toBe(true);
        return;
      }
      await h.adapter.load();
      const peer = await h.peer();
      try {
        await peer.load();
        const seen: LogRecord[] = [];
        const ownSeen: LogRecord[] = [];
        const stop = await h.adapter.follow((r) => seen.push(r));
        const stopOwn = await peer.follow!((r) => ownSeen.push(r));
        const records = [createRecord('f'), batchRecord('f', 1), batchRecord('f', 2)];
        for (const r of records) await peer.append(r);
        const deadline = Date.now() + 10_000;
        while (seen.length < records.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(seen).toEqual(records);
        expect(ownSeen).toEqual([]);
        await stop();
        await stopOwn();
        // A writer that lost the race is told so.
        await expect(h.adapter.append(batchRecord('f', 2, 'late'))).rejects.toMatchObject({ code: 'TG_VERSION_CONFLICT' });
      } finally {
        await peer.close();
      }
    }));
  });
}
