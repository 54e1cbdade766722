import { readFile, readdir, truncate, unlink } from 'node:fs/promises';
import { ToolgraphError } from '../../../errors/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { LoadedState, LogRecord, SnapshotStream } from '../../engine/index.ts';
import { findValidFrame, scanFrames } from './record-frame.ts';
import { openSnapshotFile, type SnapshotFile } from './snapshot-file.ts';
import { isTempFile, parseSegmentFile, parseSnapshotFile, pathIn, segmentFile, syncDirectory } from './log-files.ts';

/** What the writer needs to know about a live graph. */
export interface LiveGraph {
  /** Sequence number of the createGraph record of this incarnation. */
  createdSeq: number;
  /** Highest version logged (or being logged). */
  version: number;
  /** Version of the durable snapshot, -1 without one. */
  snapVersion: number;
  /** Versions and sequence numbers of the batches after the snapshot, in order: what compaction must keep. */
  versions: number[];
  seqs: number[];
}

export interface Segment {
  /** Sequence number of its first record. */
  readonly id: number;
  readonly path: string;
}

export interface RecoveredLog {
  readonly state: LoadedState;
  readonly graphs: Map<string, LiveGraph>;
  readonly segments: Segment[];
  /** Length of the last segment after any torn tail was cut off. */
  readonly lastSegmentBytes: number;
  readonly nextSeq: number;
}

type StoredSnapshot = SnapshotFile;

interface Incarnation {
  /** Undefined when its createGraph lies in a segment removed by compaction. */
  readonly createdSeq: number | undefined;
  readonly records: { seq: number; record: LogRecord }[];
  version: number;
}

function corrupt(message: string, details?: Record<string, unknown>): ToolgraphError {
  return new ToolgraphError('TG_STORAGE_CORRUPT', message, details ? { details } : {});
}

function parseJson<T>(payload: Buffer, where: string): T {
  try {
    return JSON.parse(payload.toString('utf8')) as T;
  } catch (error) {
    throw new ToolgraphError('TG_STORAGE_CORRUPT', `${where} passed its checksum but is not valid JSON.`, { cause: error });
  }
}

/**
 * Reads the log directory back: snapshots, then every segment in order. Checksums are verified for
 * every record; damage with nothing valid after it is a torn tail from a crash mid-write (cut off, with
 * a warning); damage followed by valid records is TG_STORAGE_CORRUPT, since dropping it would lose
 * acknowledged batches.
 */
export async function recoverLog(dir: string, logger: Logger): Promise<RecoveredLog> {
  const names = await readdir(dir);
  let changedDir = false;
  for (const name of names.filter(isTempFile)) {
    await unlink(pathIn(dir, name));
    changedDir = true;
  }

  const snapshots: StoredSnapshot[] = [];
  for (const name of names) {
    const createdSeq = parseSnapshotFile(name);
    if (createdSeq === undefined) continue;
    // Only the first frame (the header) is read here; the nodes and edges stream in when the engine
    // restores the graph, and a damaged frame there is TG_STORAGE_CORRUPT just the same.
    const stored = await openSnapshotFile(pathIn(dir, name), name);
    if (stored.createdSeq !== createdSeq) throw corrupt(`Snapshot file ${name} holds the snapshot of another graph incarnation.`, { file: name });
    snapshots.push(stored);
  }

  const segments: Segment[] = names
    .map((name) => ({ id: parseSegmentFile(name), path: pathIn(dir, name) }))
    .filter((s): s is Segment => s.id !== undefined)
    .sort((a, b) => a.id - b.id);

  const incarnations = new Map<string, Incarnation | null>();
  let nextSeq = 1;
  let lastSegmentBytes = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const buf = await readFile(segment.path);
    const scan = scanFrames(buf);
    lastSegmentBytes = buf.length;
    if (scan.damage !== undefined) {
      const name = segmentFile(segment.id);
      const laterSegments = segments.slice(i + 1);
      let validLater = scan.validAfter !== undefined ? `${name} at byte ${scan.validAfter}` : undefined;
      let laterBytes = 0;
      for (const later of laterSegments) {
        const laterBuf = await readFile(later.path);
        laterBytes += laterBuf.length;
        const found = validLater === undefined ? findValidFrame(laterBuf, 0) : undefined;
        if (found !== undefined) validLater = `${segmentFile(later.id)} at byte ${found}`;
      }
      if (validLater !== undefined) {
        throw corrupt(
          `The graph log is corrupt: ${name} has a ${scan.damage} at byte ${scan.validEnd}, and valid records follow (${validLater}). ` +
          'Refusing to start rather than lose acknowledged batches; restore the data directory from a backup.',
          { file: name, offset: scan.validEnd, damage: scan.damage });
      }
      const dropped = buf.length - scan.validEnd + laterBytes;
      logger.warn({ file: name, offset: scan.validEnd, droppedBytes: dropped, damage: scan.damage },
        `dropped a torn tail of ${dropped} bytes from the graph log (a write cut short by a crash)`);
      await truncate(segment.path, scan.validEnd);
      for (const later of laterSegments) await unlink(later.path);
      segments.length = i + 1;
      lastSegmentBytes = scan.validEnd;
      changedDir = true;
    }
    nextSeq = segment.id;
    for (const payload of scan.payloads) {
      const seq = nextSeq++;
      replayRecord(incarnations, seq, parseJson<LogRecord>(payload, `Record ${seq} of ${segmentFile(segment.id)}`));
    }
  }
  for (const s of snapshots) nextSeq = Math.max(nextSeq, s.createdSeq + 1);

  const firstLogSeq = segments[0]?.id ?? nextSeq;
  const byName = new Map<string, StoredSnapshot[]>();
  for (const s of snapshots) byName.set(s.header.graph, [...(byName.get(s.header.graph) ?? []), s]);
  const allNames = new Set([...incarnations.keys(), ...byName.keys()]);

  const graphs = new Map<string, LiveGraph>();
  const liveSnapshots: SnapshotStream[] = [];
  const records: { seq: number; record: LogRecord }[] = [];
  const stale: StoredSnapshot[] = [];
  for (const name of allNames) {
    const inc = incarnations.get(name);
    const candidates = byName.get(name) ?? [];
    let chosen: StoredSnapshot | undefined;
    if (inc === null) {
      chosen = undefined;
    } else if (inc === undefined || inc.createdSeq === undefined) {
      // Created before the oldest segment we kept: only a snapshot can say what it held.
      chosen = candidates.filter((s) => s.createdSeq < firstLogSeq).sort((a, b) => b.createdSeq - a.createdSeq)[0];
      if (!chosen && inc) throw corrupt('The graph log holds batches of a graph whose creation and snapshot are both missing.');
    } else {
      chosen = candidates.find((s) => s.createdSeq === inc.createdSeq);
    }
    stale.push(...candidates.filter((s) => s !== chosen));
    // Dropped, or only stale snapshots of incarnations the log has since ended.
    if (inc === null || (inc === undefined && !chosen)) continue;
    const snapVersion = chosen ? chosen.header.version : -1;
    const after = (inc?.records ?? []).filter((r) => r.record.kind !== 'batch' || r.record.batch.version > snapVersion);
    const kept = chosen ? after.filter((r) => r.record.kind === 'batch') : after;
    records.push(...kept);
    if (chosen) liveSnapshots.push(chosen.stream);
    const batches = kept.filter((r) => r.record.kind === 'batch');
    graphs.set(name, {
      createdSeq: chosen ? chosen.createdSeq : inc!.createdSeq!,
      version: Math.max(snapVersion, inc?.version ?? 0),
      snapVersion,
      versions: chosen ? batches.map((r) => (r.record.kind === 'batch' ? r.record.batch.version : 0)) : [],
      seqs: chosen ? batches.map((r) => r.seq) : [],
    });
  }
  for (const s of stale) {
    await unlink(s.path);
    changedDir = true;
  }
  if (changedDir) await syncDirectory(dir);

  records.sort((a, b) => a.seq - b.seq);
  return {
    state: { snapshots: liveSnapshots, records: records.map((r) => r.record) },
    graphs, segments, lastSegmentBytes, nextSeq,
  };
}

function replayRecord(incarnations: Map<string, Incarnation | null>, seq: number, record: LogRecord): void {
  if (record.kind === 'createGraph') {
    incarnations.set(record.graph, { createdSeq: seq, records: [{ seq, record }], version: 0 });
    return;
  }
  if (record.kind === 'dropGraph') {
    incarnations.set(record.graph, null);
    return;
  }
  let inc = incarnations.get(record.batch.graph);
  if (inc === null) throw corrupt(`Record ${seq} of the graph log is a batch for a graph dropped before it.`);
  if (inc === undefined) {
    inc = { createdSeq: undefined, records: [], version: 0 };
    incarnations.set(record.batch.graph, inc);
  }
  inc.records.push({ seq, record });
  inc.version = Math.max(inc.version, record.batch.version);
}

/** Where compaction may cut: the first sequence number this graph still needs from the log. */
export function firstNeededSeq(graph: LiveGraph): number {
  if (graph.snapVersion < 0) return graph.createdSeq;
  return graph.seqs[0] ?? Number.POSITIVE_INFINITY;
}

