import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GraphEngine } from '../../../../src/graph/engine/index.ts';
import {
  FilePersistence, nodeLogFileSystem, scanFrames, type LogFileSystem,
} from '../../../../src/graph/persist/file/index.ts';
import { engineState } from '../engine-state.ts';
import { buildSnapshotGraph, nodeId } from '../../snapshot-graph.ts';

const id = nodeId;

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tg-snapshot-file-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(`${dataDir}-crash`, { recursive: true, force: true });
});

/** About 2 MB of snapshot: several chunks of each kind and more than one write. */
function build(engine: GraphEngine): Promise<void> {
  return buildSnapshotGraph(engine, (i) => ({ i, s: 'x'.repeat(300), f: i / 3 }));
}

const open = async (directory: string, fileSystem?: LogFileSystem): Promise<GraphEngine> => GraphEngine.open({
  persistence: await FilePersistence.open(fileSystem ? { directory, segmentBytes: 64 * 1024, fileSystem } : { directory, segmentBytes: 64 * 1024 }),
  snapshotEvery: 0,
});

describe('file persistence: streamed snapshots', () => {
  it('recovers a chunked snapshot to the graph it was taken of', async () => {
    const engine = await open(dataDir);
    await build(engine);
    await engine.snapshot('g');
    await engine.commit({ graph: 'g', mutations: [{ op: 'deleteNode', id: id(7) }, { op: 'createNode', id: 'after', label: 'A', props: {} }] });
    const expected = engineState(engine);
    await engine.close();

    const files = await readdir(dataDir);
    const snap = files.find((n) => n.endsWith('.snap'))!;
    const frames = scanFrames(await readFile(join(dataDir, snap)));
    expect(frames.damage).toBeUndefined();
    // Header, several node chunks, several edge chunks, end.
    const kinds = frames.payloads.map((p) => Object.keys(JSON.parse(p.toString('utf8')) as object)[0]);
    expect(kinds[0]).toBe('createdSeq');
    expect(kinds.filter((k) => k === 'nodes').length).toBeGreaterThan(1);
    expect(kinds.filter((k) => k === 'edges').length).toBeGreaterThan(1);
    expect(kinds.at(-1)).toBe('end');

    // The build's batches were compacted away: the graph comes back from the snapshot.
    const raw = await FilePersistence.open({ directory: dataDir });
    const state = await raw.load();
    expect(state.snapshots.length).toBe(1);
    expect(state.records.length).toBe(1);
    await raw.close();
    const reopened = await open(dataDir);
    expect(engineState(reopened)).toEqual(expected);
    await reopened.close();
  });

  it('recovers from a crash in the middle of writing a snapshot, with every acknowledged commit', async () => {
    // Hold the snapshot's second write to its .tmp file: the file then holds part of the snapshot.
    let reached!: () => void;
    const midway = new Promise<void>((r) => { reached = r; });
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    const fileSystem: LogFileSystem = {
      ...nodeLogFileSystem,
      async open(path, flags, mode) {
        const handle = await nodeLogFileSystem.open(path, flags, mode);
        if (!path.endsWith('.snap.tmp')) return handle;
        let writes = 0;
        return {
          async write(buffer, offset, length, position) {
            if (++writes === 2) {
              reached();
              await released;
            }
            return handle.write(buffer, offset, length, position);
          },
          datasync: () => handle.datasync(),
          sync: () => handle.sync(),
          close: () => handle.close(),
        };
      },
    };
    const engine = await open(dataDir, fileSystem);
    await build(engine);
    const snapshot = engine.snapshot('g');
    await midway;
    for (let k = 0; k < 10; k++) {
      await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: id(k), set: { s: `during ${k}` } }, { op: 'deleteNode', id: id(4000 + k) }] });
    }
    const expected = engineState(engine);
    // The crash: the directory as it is now, with the snapshot half written (the lock's owner is gone).
    expect((await readdir(dataDir)).some((n) => n.endsWith('.snap.tmp'))).toBe(true);
    await cp(dataDir, `${dataDir}-crash`, { recursive: true });
    await rm(join(`${dataDir}-crash`, 'LOCK'));
    release();
    await snapshot;
    await engine.close();

    const recovered = await open(`${dataDir}-crash`);
    expect(engineState(recovered)).toEqual(expected);
    await recovered.close();
    const left = await readdir(`${dataDir}-crash`);
    expect(left.filter((n) => n.endsWith('.tmp') || n.endsWith('.snap'))).toEqual([]);
  });
});
