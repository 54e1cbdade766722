import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FilePersistence, encodeFrame, nodeLogFileSystem, type LogFileHandle, type LogFileSystem,
} from '../../../../src/graph/persist/file/index.ts';
import { snapshotStream, type LogRecord } from '../../../../src/graph/engine/index.ts';
import { batchRecord, createRecord } from '../contract-suite.ts';

/**
 * The write path through a filesystem seam that records every call, so the order
 * write → fdatasync → acknowledge is asserted rather than assumed (with `datasync()` removed from the
 * adapter, every other file test still passes).
 */
interface Recorder {
  fs: LogFileSystem;
  readonly events: string[];
  /** Bytes of the current segment that the last finished datasync covers. */
  synced: number;
  written: number;
  /** When set, the next datasync waits for this promise (and fails if it rejects). */
  gate: Promise<void> | undefined;
  onDatasync: (() => void) | undefined;
}

function recordingFileSystem(): Recorder {
  const rec: Recorder = { fs: undefined as unknown as LogFileSystem, events: [], synced: 0, written: 0, gate: undefined, onDatasync: undefined };
  const wrap = (name: string, handle: LogFileHandle): LogFileHandle => ({
    async write(buffer, offset, length, position) {
      const result = await handle.write(buffer, offset, length, position);
      rec.events.push(`write ${name} ${position}+${result.bytesWritten}`);
      if (name.startsWith('wal-')) rec.written = Math.max(rec.written, position + result.bytesWritten);
      return result;
    },
    async datasync() {
      rec.events.push(`datasync ${name}`);
      const covers = rec.written;
      rec.onDatasync?.();
      const gate = rec.gate;
      rec.gate = undefined;
      if (gate) await gate;
      await handle.datasync();
      rec.events.push(`datasynced ${name}`);
      if (name.startsWith('wal-')) rec.synced = covers;
    },
    async sync() {
      await handle.sync();
      rec.events.push(`sync ${name}`);
    },
    close: () => handle.close(),
  });
  const fs: LogFileSystem = {
    async open(path, flags, mode) {
      const handle = await nodeLogFileSystem.open(path, flags, mode);
      rec.events.push(`open ${basename(path)} ${flags}`);
      if (flags !== 'r+') {
        rec.written = 0;
        rec.synced = 0;
      }
      return wrap(basename(path), handle);
    },
    rename: (from, to) => nodeLogFileSystem.rename(from, to).then(() => { rec.events.push(`rename ${basename(from)} ${basename(to)}`); }),
    unlink: (path) => nodeLogFileSystem.unlink(path).then(() => { rec.events.push(`unlink ${basename(path)}`); }),
    syncDirectory: (dir) => nodeLogFileSystem.syncDirectory(dir).then(() => { rec.events.push('syncdir'); }),
  };
  rec.fs = fs;
  return rec;
}

const frameBytes = (record: LogRecord): number => encodeFrame(Buffer.from(JSON.stringify(record), 'utf8')).length;

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tg-write-order-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function openRecorded(rec: Recorder): Promise<FilePersistence> {
  const adapter = await FilePersistence.open({ directory: dataDir, fileSystem: rec.fs });
  await adapter.load();
  return adapter;
}

describe('file persistence: write → fdatasync → acknowledge', () => {
  it('makes a new segment durable in its directory before writing to it', async () => {
    const rec = recordingFileSystem();
    const adapter = await openRecorded(rec);
    try {
      await adapter.append(createRecord('g'));
      const segment = rec.events[0]!.split(' ')[1]!;
      expect(rec.events.slice(0, 5)).toEqual([
        `open ${segment} wx`, 'syncdir', `write ${segment} 0+${frameBytes(createRecord('g'))}`, `datasync ${segment}`, `datasynced ${segment}`,
      ]);
    } finally {
      await adapter.close();
    }
  });

  it('resolves an append only after the fdatasync that follows its write has finished', async () => {
    const rec = recordingFileSystem();
    const adapter = await openRecorded(rec);
    try {
      await adapter.append(createRecord('g'));
      rec.events.length = 0;
      let release!: () => void;
      rec.gate = new Promise<void>((resolve) => { release = resolve; });
      const syncing = new Promise<void>((resolve) => { rec.onDatasync = resolve; });
      let acknowledged = false;
      const append = adapter.append(batchRecord('g', 1)).then(() => {
        acknowledged = true;
        rec.events.push('ack');
      });
      // Without an fdatasync the append resolves straight after its write: race the two.
      await Promise.race([syncing, append]);
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(acknowledged).toBe(false);
      release();
      await append;
      const segment = rec.events[0]!.split(' ')[1]!;
      expect(rec.events).toEqual([
        `write ${segment} ${frameBytes(createRecord('g'))}+${frameBytes(batchRecord('g', 1))}`,
        `datasync ${segment}`, `datasynced ${segment}`, 'ack',
      ]);
    } finally {
      await adapter.close();
    }
  });

  it('acknowledges each of many concurrent appends only once a finished fdatasync covers its bytes', async () => {
    const rec = recordingFileSystem();
    const adapter = await openRecorded(rec);
    try {
      await adapter.append(createRecord('g'));
      let end = frameBytes(createRecord('g'));
      const ends: number[] = [];
      const appends: Promise<void>[] = [];
      const coveredAtAck: number[] = [];
      for (let v = 1; v <= 40; v++) {
        end += frameBytes(batchRecord('g', v));
        ends.push(end);
        appends.push(adapter.append(batchRecord('g', v)).then(() => { coveredAtAck[v - 1] = rec.synced; }));
        if (v % 7 === 0) await new Promise((r) => setImmediate(r));
      }
      await Promise.all(appends);
      for (let i = 0; i < ends.length; i++) expect(coveredAtAck[i]).toBeGreaterThanOrEqual(ends[i]!);
      // Group commit: fewer syncs than appends.
      expect(rec.events.filter((e) => e.startsWith('datasynced wal-')).length).toBeLessThan(41);
    } finally {
      await adapter.close();
    }
  });

  it('makes a snapshot durable (file synced, renamed, directory synced) before writeSnapshot resolves', async () => {
    const rec = recordingFileSystem();
    const adapter = await openRecorded(rec);
    try {
      await adapter.append(createRecord('g'));
      await adapter.append(batchRecord('g', 1));
      rec.events.length = 0;
      const nodes = Array.from({ length: 30 }, (_v, i) => ({ id: `n${i}`, label: 'A', props: { i } }));
      await adapter.writeSnapshot(snapshotStream({ graph: 'g', version: 1, at: 'x', nodes, edges: [], catalogue: { labels: [], edgeTypes: [] } }, 7, 7));
      rec.events.push('resolved');
      const tmp = rec.events[0]!.split(' ')[1]!;
      expect(tmp).toMatch(/^snap-\d{16}\.snap\.tmp$/);
      const tail = rec.events.slice(rec.events.findIndex((e) => e.startsWith(`sync ${tmp}`)));
      expect(rec.events.slice(1, -tail.length).every((e) => e.startsWith(`write ${tmp}`))).toBe(true);
      expect(tail).toEqual([`sync ${tmp}`, `rename ${tmp} ${tmp.slice(0, -'.tmp'.length)}`, 'syncdir', 'resolved']);
    } finally {
      await adapter.close();
    }
  });

  it('rejects every append of a batch whose fdatasync fails with TG_STORAGE_FAILED, acknowledges none, and refuses later appends', async () => {
    const rec = recordingFileSystem();
    const adapter = await openRecorded(rec);
    try {
      await adapter.append(createRecord('g'));
      const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      rec.gate = Promise.reject(eio);
      rec.gate.catch(() => undefined);
      const acknowledged: number[] = [];
      const results = await Promise.allSettled([1, 2, 3].map((v) => adapter.append(batchRecord('g', v)).then(() => { acknowledged.push(v); })));
      expect(acknowledged).toEqual([]);
      for (const r of results) {
        expect(r.status).toBe('rejected');
        expect(r.status === 'rejected' && r.reason).toMatchObject({ code: 'TG_STORAGE_FAILED' });
      }
      await expect(adapter.append(batchRecord('g', 4))).rejects.toMatchObject({ code: 'TG_STORAGE_FAILED' });
    } finally {
      await adapter.close();
    }
  });
});
