import { mkdtemp, readFile, readdir, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine, snapshotStream, type LogRecord } from '../../../../src/graph/engine/index.ts';
import { FRAME_HEADER_BYTES, FilePersistence, encodeFrame } from '../../../../src/graph/persist/file/index.ts';
import { captureLogger } from '../../../support/capture-logger.ts';
import { batchRecord, createRecord } from '../contract-suite.ts';
import { engineState } from '../engine-state.ts';

/**
 * The file adapter's side of "storage says when acknowledged data is gone": LOG-HEAD and the
 * snapshot's log position as they are written, the stores written before them, and what a start
 * with acceptDataLoss leaves behind. The cases an operator meets are in
 * test/hostile/storage-acknowledged-loss.test.ts, through the real start path.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-acked-loss-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const segments = async (): Promise<string[]> => (await readdir(dir)).filter((n) => /^wal-\d{16}\.log$/.test(n)).sort();
const idOf = (name: string): number => Number(name.slice(4, 20));
const head = async (): Promise<Record<string, unknown>> => JSON.parse(await readFile(join(dir, 'LOG-HEAD'), 'utf8')) as Record<string, unknown>;

async function append(records: readonly LogRecord[], options: { segmentBytes?: number } = {}): Promise<void> {
  const adapter = await FilePersistence.open({ directory: dir, ...options });
  await adapter.load();
  for (const r of records) await adapter.append(r);
  await adapter.close();
}

async function load(options: { acceptDataLoss?: boolean } = {}): Promise<{ records: readonly LogRecord[]; lines: string[] }> {
  const { lines, logger } = captureLogger('warn');
  const adapter = await FilePersistence.open({ directory: dir, logger, ...options });
  try {
    return { records: (await adapter.load()).records, lines };
  } finally {
    await adapter.close();
  }
}

const batches = (graph: string, from: number, to: number): LogRecord[] => Array.from({ length: to - from + 1 }, (_v, i) => batchRecord(graph, from + i));

async function engineOn(options: { segmentBytes?: number; snapshotEvery?: number; acceptDataLoss?: boolean } = {}): Promise<GraphEngine> {
  const { snapshotEvery, ...adapterOptions } = options;
  return GraphEngine.open({ persistence: await FilePersistence.open({ directory: dir, ...adapterOptions }), snapshotEvery: snapshotEvery ?? 0 });
}

async function commitMany(engine: GraphEngine, graph: string, n: number): Promise<void> {
  if (!engine.hasGraph(graph)) await engine.createGraph(graph);
  for (let i = 0; i < n; i++) await engine.commit({ graph, mutations: [{ op: 'createNode', label: 'Item', props: { i, pad: 'x'.repeat(80) } }] });
}

describe('LOG-HEAD', () => {
  it('is replaced at every segment roll, naming the newest segment and the one just sealed', async () => {
    await append([createRecord('g'), ...batches('g', 1, 4)], { segmentBytes: 1 });
    const names = await segments();
    expect(names.length).toBe(5);
    const sealed = names.at(-2)!;
    expect(await head()).toEqual({
      format: 1, newest: idOf(names.at(-1)!),
      sealed: { first: idOf(sealed), records: 1, bytes: (await readFile(join(dir, sealed))).length },
    });
  });

  it('is not written for a store that holds no record, so it still looks fresh', async () => {
    await append([]);
    expect((await readdir(dir)).sort()).toEqual([(await segments())[0]]);
  });

  it('is written at start-up for a store from before it existed, which loads as before', async () => {
    const records = [createRecord('g'), ...batches('g', 1, 3)];
    await append(records, { segmentBytes: 1 });
    await unlink(join(dir, 'LOG-HEAD'));
    expect((await load()).records).toEqual(records);
    expect(await head()).toMatchObject({ newest: idOf((await segments()).at(-1)!) });
  });

  it('left behind by a roll that died before replacing it, is no loss: the newer segment is read and LOG-HEAD caught up', async () => {
    const records = [createRecord('g'), ...batches('g', 1, 3)];
    await append(records, { segmentBytes: 1 });
    const names = await segments();
    // The head as it stood before the last roll.
    const previous = names.at(-2)!;
    const beforePrevious = names.at(-3)!;
    await writeFile(join(dir, 'LOG-HEAD'), JSON.stringify({
      format: 1, newest: idOf(previous), sealed: { first: idOf(beforePrevious), records: 1, bytes: (await readFile(join(dir, beforePrevious))).length },
    }));
    const { records: loaded, lines } = await load();
    expect(loaded).toEqual(records);
    expect(lines).toEqual([]);
    expect(await head()).toMatchObject({ newest: idOf(names.at(-1)!) });
  });

  it('says nothing of the oldest segments (an older version compacting would leave that stale), but a graph whose start is gone is refused', async () => {
    await append([createRecord('g'), ...batches('g', 1, 9)], { segmentBytes: 600 });
    const names = await segments();
    expect(names.length).toBeGreaterThan(2);
    await unlink(join(dir, names[0]!));
    const adapter = await FilePersistence.open({ directory: dir });
    await expect(adapter.load()).rejects.toMatchObject({
      code: 'TG_STORAGE_DATA_LOST',
      message: expect.stringMatching(new RegExp(`record ${idOf(names[1]!)} in ${names[1]} is batch "g" v${idOf(names[1]!) - 1}, but neither the creation of "g" nor a snapshot of it is stored`)),
    });
    await adapter.close();
  });

  it('that is not a log head is TG_STORAGE_CORRUPT naming it', async () => {
    await append([createRecord('g')], { segmentBytes: 1 });
    await append([batchRecord('g', 1)], { segmentBytes: 1 });
    await writeFile(join(dir, 'LOG-HEAD'), '{"newest":');
    const adapter = await FilePersistence.open({ directory: dir });
    await expect(adapter.load()).rejects.toMatchObject({ code: 'TG_STORAGE_CORRUPT', message: expect.stringContaining('LOG-HEAD') });
    await adapter.close();
  });
});

describe('snapshots record how far the log went', () => {
  const snapshot = (graph: string, version: number) =>
    snapshotStream({ graph, version, nodes: [], edges: [], catalogue: { labels: [], edgeTypes: [] }, at: '2026-11-22T00:00:00.000Z' });

  it('in their first frame, as the last record durable when they were taken', async () => {
    const adapter = await FilePersistence.open({ directory: dir });
    await adapter.load();
    for (const r of [createRecord('g'), ...batches('g', 1, 5)]) await adapter.append(r);
    await adapter.writeSnapshot(snapshot('g', 5));
    await adapter.close();
    const snap = await readFile(join(dir, 'snap-0000000000000001.snap'));
    const first = JSON.parse(snap.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + snap.readUInt32LE(0)).toString('utf8')) as Record<string, unknown>;
    expect(first).toMatchObject({ createdSeq: 1, loggedThrough: 6 });
  });

  it('and one written before they did (no log position) still proves a loss by its version', async () => {
    await append([createRecord('g'), ...batches('g', 1, 8)]);
    // A whole-snapshot file as earlier versions wrote it: one frame, no loggedThrough.
    const legacy = { createdSeq: 1, snapshot: { graph: 'g', version: 6, nodes: [], edges: [], catalogue: { labels: [], edgeTypes: [] }, at: '2026-11-22T00:00:00.000Z' } };
    await writeFile(join(dir, 'snap-0000000000000001.snap'), encodeFrame(Buffer.from(JSON.stringify(legacy), 'utf8')));
    expect((await load()).records).toEqual(batches('g', 7, 8));
    const [segment] = await segments();
    const buf = await readFile(join(dir, segment!));
    let at = 0;
    for (let i = 0; i < 5; i++) at += FRAME_HEADER_BYTES + buf.readUInt32LE(at);
    await truncate(join(dir, segment!), at);
    const adapter = await FilePersistence.open({ directory: dir });
    await expect(adapter.load()).rejects.toMatchObject({
      code: 'TG_STORAGE_DATA_LOST',
      message: expect.stringContaining(`snap-0000000000000001.snap holds graph "g" at version 6 (created at record 1), but the log ends at record 5 in ${segment}, where "g" is at version 4`),
    });
    await adapter.close();
  });
});

describe('acceptDataLoss', () => {
  it('also takes damage followed by valid records (TG_STORAGE_CORRUPT): keeps the records before it and sets the rest aside', async () => {
    const records = [createRecord('g'), ...batches('g', 1, 5)];
    await append(records);
    const [segment] = await segments();
    const path = join(dir, segment!);
    const whole = Buffer.from(await readFile(path));
    let at = 0;
    for (let i = 0; i < 3; i++) at += FRAME_HEADER_BYTES + whole.readUInt32LE(at);
    whole[at + 5]! ^= 0x04;
    await writeFile(path, whole);
    const refused = await FilePersistence.open({ directory: dir });
    await expect(refused.load()).rejects.toMatchObject({ code: 'TG_STORAGE_CORRUPT', message: expect.stringContaining('--accept-data-loss') });
    await refused.close();

    const { records: loaded, lines } = await load({ acceptDataLoss: true });
    expect(loaded).toEqual(records.slice(0, 3));
    expect(lines.join('\n')).toContain(`moved ${segment}.from-byte-${at} into lost-`);
    const lost = (await readdir(dir)).find((n) => n.startsWith('lost-'))!;
    expect(await readFile(join(dir, lost, `${segment}.from-byte-${at}`))).toEqual(whole.subarray(at));
    expect(JSON.parse(await readFile(join(dir, lost, 'lost.json'), 'utf8'))).toMatchObject({
      keptThrough: 3, findings: [{ kind: 'damage', file: segment }],
      // v3 is the damaged record itself; what can still be read of the rest is reported.
      droppedRecords: [{ graph: 'g', what: '"g": batches v4–v5 (2)' }],
    });
    // The records after the damage were acknowledged under versions 3–5; the graph goes on from 2.
    await append([batchRecord('g', 3, 'again')]);
    expect((await load()).records).toEqual([...records.slice(0, 3), batchRecord('g', 3, 'again')]);
  });

  it('brings back a graph created in the lost range from its snapshot, and keeps it across restarts', async () => {
    const engine = await engineOn();
    await commitMany(engine, 'g', 5);
    await commitMany(engine, 'h', 3);
    await engine.snapshot('h');
    await commitMany(engine, 'g', 5);
    await engine.close();
    // Cut the log just before h's creation: only h's snapshot says h existed.
    const [segment] = await segments();
    const buf = await readFile(join(dir, segment!));
    let at = 0;
    for (let i = 0; i < 6; i++) at += FRAME_HEADER_BYTES + buf.readUInt32LE(at);
    await truncate(join(dir, segment!), at);
    const refused = await FilePersistence.open({ directory: dir });
    await expect(refused.load()).rejects.toMatchObject({
      code: 'TG_STORAGE_DATA_LOST', message: expect.stringContaining('snap-0000000000000007.snap holds graph "h" at version 3'),
    });
    await refused.close();

    const accepted = await engineOn({ acceptDataLoss: true });
    expect(accepted.listGraphs().map((g) => [g.name, g.version])).toEqual([['g', 5], ['h', 3]]);
    await commitMany(accepted, 'h', 1);
    await commitMany(accepted, 'g', 1);
    const state = engineState(accepted);
    await accepted.close();
    const again = await engineOn();
    expect(engineState(again)).toEqual(state);
    expect(again.listGraphs().map((g) => [g.name, g.version])).toEqual([['g', 6], ['h', 4]]);
    await again.close();
  });

  it('leaves a log that goes on through rolls, snapshots and compaction, and restarts clean', async () => {
    const first = await engineOn({ segmentBytes: 1024, snapshotEvery: 15 });
    await commitMany(first, 'g', 65);
    await first.close();
    // Delete the newest segment: LOG-HEAD says it existed. The last snapshot is at version 60.
    await unlink(join(dir, (await segments()).at(-1)!));
    const accepted = await engineOn({ segmentBytes: 1024, snapshotEvery: 15, acceptDataLoss: true });
    const resumed = accepted.listGraphs()[0]!.version;
    expect((await readdir(dir)).filter((n) => n.startsWith('lost-'))).toHaveLength(1);
    expect(resumed).toBeGreaterThanOrEqual(60);
    expect(resumed).toBeLessThan(65);
    await commitMany(accepted, 'g', 60);
    const state = engineState(accepted);
    await accepted.close();
    const { lines } = await load();
    expect(lines).toEqual([]);
    const again = await engineOn({ segmentBytes: 1024 });
    expect(engineState(again)).toEqual(state);
    expect(again.listGraphs()[0]!.version).toBe(resumed + 60);
    await again.close();
  });
});
