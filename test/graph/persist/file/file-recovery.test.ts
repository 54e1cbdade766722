import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine, readSnapshot, snapshotStream } from '../../../../src/graph/engine/index.ts';
import { FilePersistence, FRAME_HEADER_BYTES } from '../../../../src/graph/persist/file/index.ts';
import type { LogRecord } from '../../../../src/graph/engine/index.ts';
import { createLogger } from '../../../../src/log/index.ts';
import { batchRecord, createRecord } from '../contract-suite.ts';
import { engineState } from '../engine-state.ts';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tg-file-recovery-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const graphsDir = (): string => dataDir;

async function segments(): Promise<string[]> {
  return (await readdir(graphsDir())).filter((n) => n.startsWith('wal-')).sort();
}

async function writeAll(records: readonly LogRecord[]): Promise<void> {
  const adapter = await FilePersistence.open({ directory: dataDir });
  await adapter.load();
  for (const r of records) await adapter.append(r);
  await adapter.close();
}

async function loadRecords(logLines?: string[]): Promise<readonly LogRecord[]> {
  const logger = logLines
    ? createLogger({ destination: new Writable({ write(chunk, _enc, done) { logLines.push(String(chunk)); done(); } }) })
    : undefined;
  const adapter = await FilePersistence.open(logger ? { directory: dataDir, logger } : { directory: dataDir });
  try {
    return (await adapter.load()).records;
  } finally {
    await adapter.close();
  }
}

/** Offsets where each frame of a log file starts. */
function frameStarts(buf: Buffer): number[] {
  const starts: number[] = [];
  for (let at = 0; at < buf.length; at += FRAME_HEADER_BYTES + buf.readUInt32LE(at)) starts.push(at);
  return starts;
}

const RECORDS: LogRecord[] = [createRecord('g'), batchRecord('g', 1), batchRecord('g', 2), batchRecord('g', 3)];

describe('file persistence: torn tail', () => {
  it('drops an incomplete last record cut at every byte offset, keeps the rest, and logs how much it dropped', async () => {
    await writeAll(RECORDS);
    const [segment] = await segments();
    const path = join(graphsDir(), segment!);
    const whole = await readFile(path);
    const lastStart = frameStarts(whole).at(-1)!;
    for (let cut = lastStart; cut < whole.length; cut++) {
      await writeFile(path, whole.subarray(0, cut));
      const lines: string[] = [];
      expect(await loadRecords(lines)).toEqual(RECORDS.slice(0, -1));
      expect((await readFile(path)).length).toBe(lastStart);
      if (cut > lastStart) expect(lines.join('')).toContain(`"droppedBytes":${cut - lastStart}`);
    }
    // Writing goes on after the cut, and the log reads back whole.
    await writeAll([batchRecord('g', 3, 'again')]);
    expect(await loadRecords()).toEqual([...RECORDS.slice(0, -1), batchRecord('g', 3, 'again')]);
  });

  it('drops zero-filled or garbage bytes after the last record', async () => {
    await writeAll(RECORDS);
    const path = join(graphsDir(), (await segments())[0]!);
    const whole = await readFile(path);
    for (const tail of [Buffer.alloc(4096), Buffer.from('garbage that is not a frame at all')]) {
      await writeFile(path, Buffer.concat([whole, tail]));
      expect(await loadRecords()).toEqual(RECORDS);
      expect((await readFile(path)).length).toBe(whole.length);
    }
  });

  it('drops a last record whose checksum fails when nothing valid follows it', async () => {
    await writeAll(RECORDS);
    const path = join(graphsDir(), (await segments())[0]!);
    const whole = Buffer.from(await readFile(path));
    whole[whole.length - 3]! ^= 0x10;
    await writeFile(path, whole);
    expect(await loadRecords()).toEqual(RECORDS.slice(0, -1));
  });
});

describe('file persistence: corruption before valid records', () => {
  // [what is hit, offset inside the frame]: the length, the payload checksum, the header checksum, the payload.
  const cases: [string, number][] = [['length', 1], ['payload checksum', 5], ['header checksum', 9], ['payload', FRAME_HEADER_BYTES + 7]];
  it.each(cases)('a bit flip in the %s of a middle record is TG_STORAGE_CORRUPT, and nothing is truncated', async (_what, within) => {
    await writeAll(RECORDS);
    const path = join(graphsDir(), (await segments())[0]!);
    const whole = Buffer.from(await readFile(path));
    const middle = frameStarts(whole)[2]!;
    whole[middle + within]! ^= 0x04;
    await writeFile(path, whole);
    const adapter = await FilePersistence.open({ directory: dataDir });
    await expect(adapter.load()).rejects.toMatchObject({ code: 'TG_STORAGE_CORRUPT', message: expect.stringContaining(`at byte ${middle}`) });
    await adapter.close();
    expect(await readFile(path)).toEqual(whole);
  });

  it('is TG_STORAGE_CORRUPT when a damaged segment is followed by a segment holding records', async () => {
    const adapter = await FilePersistence.open({ directory: dataDir, segmentBytes: 1 });
    await adapter.load();
    for (const r of RECORDS) await adapter.append(r);
    await adapter.close();
    const names = await segments();
    expect(names.length).toBe(RECORDS.length);
    const path = join(graphsDir(), names[1]!);
    const buf = Buffer.from(await readFile(path));
    buf[buf.length - 1]! ^= 0x01;
    await writeFile(path, buf);
    const reopened = await FilePersistence.open({ directory: dataDir });
    await expect(reopened.load()).rejects.toMatchObject({ code: 'TG_STORAGE_CORRUPT' });
    await reopened.close();
  });

  it('is TG_STORAGE_CORRUPT when a snapshot file is damaged', async () => {
    const adapter = await FilePersistence.open({ directory: dataDir });
    await adapter.load();
    for (const r of RECORDS) await adapter.append(r);
    await adapter.writeSnapshot(snapshotStream({ graph: 'g', version: 3, nodes: [], edges: [], catalogue: { labels: [], edgeTypes: [] }, at: '2026-11-22T00:00:00.000Z' }));
    await adapter.close();
    const snap = (await readdir(graphsDir())).find((n) => n.endsWith('.snap'))!;
    const whole = await readFile(join(graphsDir(), snap));
    // Damage in the header frame stops load; damage further in stops reading the snapshot (the engine's recovery).
    for (const at of [20, whole.length - 2]) {
      const buf = Buffer.from(whole);
      buf[at]! ^= 0x20;
      await writeFile(join(graphsDir(), snap), buf);
      const reopened = await FilePersistence.open({ directory: dataDir });
      try {
        if (at === 20) await expect(reopened.load()).rejects.toMatchObject({ code: 'TG_STORAGE_CORRUPT' });
        else await expect(readSnapshot((await reopened.load()).snapshots[0]!)).rejects.toMatchObject({ code: 'TG_STORAGE_CORRUPT' });
      } finally {
        await reopened.close();
      }
    }
  });
});

describe('file persistence: snapshots and compaction', () => {
  it('removes covered segments and reloads to the same engine state', async () => {
    const open = (): Promise<FilePersistence> => FilePersistence.open({ directory: dataDir, segmentBytes: 256 });
    const engine = await GraphEngine.open({ persistence: await open(), snapshotEvery: 7 });
    await engine.createGraph('a');
    await engine.createGraph('b');
    const ids: Record<string, string[]> = { a: [], b: [] };
    for (let i = 1; i <= 60; i++) {
      const graph = i % 3 === 0 ? 'b' : 'a';
      const mine = ids[graph]!;
      const previous = mine.at(-1);
      await engine.commit({ graph, mutations: [
        { op: 'createNode', id: `n${i}`, label: 'Item', props: { i, name: `item ${i}`, tags: ['x', String(i)] } },
        ...(previous ? [{ op: 'addEdge' as const, src: `n${i}`, tgt: previous, type: 'AFTER' }] : []),
        ...(previous && i % 2 === 0 ? [{ op: 'updateNode' as const, id: previous, set: { seen: true, score: 0.5 } }] : []),
      ] });
      mine.push(`n${i}`);
      if (i === 30) {
        await engine.dropGraph('b');
        await engine.createGraph('b');
        ids['b'] = [];
      }
    }
    await engine.snapshot('a');
    const before = engineState(engine);
    const segmentsWritten = Math.max(...(await segments()).map((n) => Number(n.slice(4, 20))));
    await engine.close();
    const left = await segments();
    // Compaction removed the segments that only held covered records.
    expect(left.length).toBeLessThan(10);
    expect(Number(left[0]!.slice(4, 20))).toBeGreaterThan(1);
    expect(segmentsWritten).toBeGreaterThan(20);

    const reopened = await GraphEngine.open({ persistence: await open() });
    expect(engineState(reopened)).toEqual(before);
    await reopened.close();
  });

  it('writes only snapshots of live graphs, and a dropped graph leaves no snapshot file behind', async () => {
    const adapter = await FilePersistence.open({ directory: dataDir });
    await adapter.load();
    await adapter.append(createRecord('g'));
    await adapter.append(batchRecord('g', 1));
    const snap = snapshotStream({ graph: 'g', version: 1, nodes: [], edges: [], catalogue: { labels: [], edgeTypes: [] }, at: '2026-11-22T00:00:00.000Z' });
    await adapter.writeSnapshot({ ...snap, header: { ...snap.header, version: 2 } }); // ahead of the log: ignored
    expect((await readdir(graphsDir())).filter((n) => n.endsWith('.snap'))).toEqual([]);
    await adapter.writeSnapshot(snap);
    expect((await readdir(graphsDir())).filter((n) => n.endsWith('.snap')).length).toBe(1);
    await adapter.append({ kind: 'dropGraph', graph: 'g', at: snap.header.at });
    await adapter.writeSnapshot(snap); // dropped: ignored
    expect((await readdir(graphsDir())).filter((n) => n.endsWith('.snap'))).toEqual([]);
    await adapter.close();
  });
});

describe('file persistence: group commit', () => {
  it('acknowledges many concurrent appends and reads them back in call order', async () => {
    const adapter = await FilePersistence.open({ directory: dataDir });
    await adapter.load();
    const records: LogRecord[] = [];
    for (let g = 0; g < 20; g++) records.push(createRecord(`g${g}`));
    for (let v = 1; v <= 20; v++) for (let g = 0; g < 20; g++) records.push(batchRecord(`g${g}`, v));
    await Promise.all(records.map((r) => adapter.append(r)));
    // Refusals are decided at call time, against appends still in flight.
    const racing = await Promise.allSettled([adapter.append(batchRecord('g0', 21)), adapter.append(batchRecord('g0', 21, 'twin'))]);
    expect(racing.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    await adapter.close();
    expect(await loadRecords()).toEqual([...records, batchRecord('g0', 21)]);
  });
});

describe('file persistence: data directory lock', () => {
  it('refuses a second opener while the first holds the lock, naming its pid, and frees it on close', async () => {
    const first = await FilePersistence.open({ directory: dataDir });
    await expect(FilePersistence.open({ directory: dataDir })).rejects.toMatchObject({
      code: 'TG_STORAGE_FAILED', message: expect.stringContaining(`locked by process ${process.pid}`),
    });
    await first.close();
    const second = await FilePersistence.open({ directory: dataDir });
    await second.close();
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    const first = await FilePersistence.open({ directory: dataDir });
    await first.close();
    const { hostname } = await import('node:os');
    await writeFile(join(graphsDir(), 'LOCK'), JSON.stringify({ pid: deadPid, host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
    const adapter = await FilePersistence.open({ directory: dataDir });
    expect(JSON.parse(await readFile(join(graphsDir(), 'LOCK'), 'utf8'))).toMatchObject({ pid: process.pid });
    await adapter.close();
  });

  it('refuses a lock held from another host, since it cannot tell whether that process lives', async () => {
    const first = await FilePersistence.open({ directory: dataDir });
    await first.close();
    await writeFile(join(graphsDir(), 'LOCK'), JSON.stringify({ pid: 1, host: 'elsewhere.example', since: '2026-01-01T00:00:00.000Z' }));
    await expect(FilePersistence.open({ directory: dataDir })).rejects.toMatchObject({ code: 'TG_STORAGE_FAILED', message: expect.stringContaining('elsewhere.example') });
  });
});
