import { readdir, truncate, unlink } from 'node:fs/promises';
import { ToolgraphError } from '../../../errors/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { LoadedState, LogRecord, SnapshotStream } from '../../engine/index.ts';
import { acceptDataLoss } from './accept-data-loss.ts';
import { refuseToLoseRecords } from './acknowledged-loss.ts';
import { analyseLog } from './log-analysis.ts';
import { nodeLogFileSystem } from './log-file-system.ts';
import { isTempFile, parseSegmentFile, parseSnapshotFile, pathIn, segmentFile, syncDirectory } from './log-files.ts';
import { readLogHead, sameLogHead, writeLogHead, type LogHead } from './log-head.ts';
import { scanSegment, type ScannedSegment } from './log-scan.ts';
import { openSnapshotFile, type SnapshotFile } from './snapshot-file.ts';

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
  /** Sequence numbers the last segment covers. */
  readonly lastSegmentSeqs: number;
  readonly nextSeq: number;
}

export interface RecoverLogOptions {
  /**
   * Start even when acknowledged records are missing: keep the intact part of the log, set the rest
   * aside and log what was lost (TOOLGRAPH_ACCEPT_DATA_LOSS). Without it such a log is refused.
   */
  readonly acceptDataLoss?: boolean;
  /** The clock of the loss marker and the lost-… folder. */
  readonly now?: () => Date;
}

function corrupt(message: string, details?: Record<string, unknown>): ToolgraphError {
  return new ToolgraphError('TG_STORAGE_CORRUPT', message, details ? { details } : {});
}

/**
 * Reads the log directory back: snapshots, every segment in order (checksums verified for every
 * frame), and LOG-HEAD, and checks them against each other (see log-analysis.ts). A log that holds
 * everything anything durable says it held recovers; at most a torn tail (damage at the end of the
 * last segment, which only an unacknowledged write can leave) is cut off with a warning. Anything else
 * is refused, naming the file and both positions, unless `acceptDataLoss`.
 */
export async function recoverLog(dir: string, logger: Logger, options: RecoverLogOptions = {}): Promise<RecoveredLog> {
  const names = await readdir(dir);
  let changedDir = false;

  const snapshots: SnapshotFile[] = [];
  for (const name of names) {
    const createdSeq = parseSnapshotFile(name);
    if (createdSeq === undefined) continue;
    // Only the first frame (the header) is read here; the nodes and edges stream in when the engine
    // restores the graph, and a damaged frame there is TG_STORAGE_CORRUPT just the same.
    const stored = await openSnapshotFile(pathIn(dir, name), name);
    if (stored.createdSeq !== createdSeq) throw corrupt(`Snapshot file ${name} holds the snapshot of another graph incarnation.`, { file: name });
    snapshots.push(stored);
  }

  const segmentIds = names.map(parseSegmentFile).filter((id): id is number => id !== undefined).sort((a, b) => a - b);
  const segments: ScannedSegment[] = [];
  for (const id of segmentIds) segments.push(await scanSegment(id, pathIn(dir, segmentFile(id))));
  const head = await readLogHead(dir);

  const analysis = analyseLog(segments, snapshots, head);
  if (analysis.findings.length > 0) {
    if (!options.acceptDataLoss) throw refuseToLoseRecords(dir, analysis.findings, analysis.endSeq - 1);
    await acceptDataLoss({ dir, segments, analysis, snapshots, head, logger, now: (options.now ?? (() => new Date()))() });
    try {
      return await recoverLog(dir, logger, { ...options, acceptDataLoss: false });
    } catch (error) {
      throw new ToolgraphError('TG_STORAGE_CORRUPT', `The graph log in ${dir} still does not read whole after setting its lost part aside: ${(error as Error).message}`, { cause: error });
    }
  }

  // Half-written snapshots and LOG-HEADs a crash left (removed only now, so a refusal changes nothing).
  for (const name of names.filter(isTempFile)) {
    await unlink(pathIn(dir, name));
    changedDir = true;
  }

  // Damage at the end of a segment with nothing valid after it anywhere, and no evidence that anything
  // there was acknowledged: in the last segment a torn tail (a write cut short by a crash, never
  // acknowledged since fdatasync precedes acknowledgement); in an earlier one, bytes past its last
  // record, which the next segment's name shows hold no record.
  for (const s of segments) {
    if (!s.damage) continue;
    const dropped = s.bytes - s.validEnd;
    const last = s === segments.at(-1);
    logger.warn({ file: s.name, offset: s.validEnd, droppedBytes: dropped, damage: s.damage.what },
      last
        ? `dropped a torn tail of ${dropped} bytes from the graph log (a write cut short by a crash)`
        : `dropped ${dropped} damaged bytes after the last record of ${s.name} (no record: the next segment starts where its records end)`);
    await truncate(s.path, s.validEnd);
    changedDir = true;
  }

  const { incarnations, chosen } = analysis;
  const graphs = new Map<string, LiveGraph>();
  const liveSnapshots: SnapshotStream[] = [];
  const records: { seq: number; record: LogRecord }[] = [];
  for (const [name, inc] of incarnations) {
    if (inc.dropped) continue;
    const snapshot = chosen.get(name);
    const snapVersion = snapshot ? snapshot.header.version : -1;
    const kept = inc.records.filter((r) => (snapshot ? r.record.kind === 'batch' && r.record.batch.version > snapVersion : true));
    records.push(...kept);
    if (snapshot) liveSnapshots.push(snapshot.stream);
    const batches = kept.filter((r) => r.record.kind === 'batch');
    graphs.set(name, {
      createdSeq: snapshot ? snapshot.createdSeq : inc.createdSeq!,
      version: Math.max(snapVersion, inc.version),
      snapVersion,
      versions: snapshot ? batches.map((r) => (r.record.kind === 'batch' ? r.record.batch.version : 0)) : [],
      seqs: snapshot ? batches.map((r) => r.seq) : [],
    });
  }
  // Graphs that only a snapshot holds (their records all compacted away).
  for (const [name, snapshot] of chosen) {
    if (incarnations.has(name)) continue;
    liveSnapshots.push(snapshot.stream);
    const v = snapshot.header.version;
    graphs.set(name, { createdSeq: snapshot.createdSeq, version: v, snapVersion: v, versions: [], seqs: [] });
  }
  // Snapshots of incarnations the log has since ended (dropped, or created again).
  const live = new Set(chosen.values());
  for (const s of snapshots) {
    if (live.has(s)) continue;
    await unlink(s.path);
    changedDir = true;
  }
  if (changedDir) await syncDirectory(dir);
  await recordLogHead(dir, segments, head);

  records.sort((a, b) => a.seq - b.seq);
  const last = segments.at(-1);
  return {
    state: { snapshots: liveSnapshots, records: records.map((r) => r.record) },
    graphs,
    segments: segments.map((s) => ({ id: s.id, path: s.path })),
    lastSegmentBytes: last?.validEnd ?? 0,
    lastSegmentSeqs: last?.seqs ?? 0,
    nextSeq: last ? last.id + last.seqs : 1,
  };
}

/**
 * Brings LOG-HEAD up to date with the log as recovered: a store written before it existed gets one,
 * and so does a store whose last roll died before writing it. An empty log gets none, so a store that
 * has never held a record still looks fresh.
 */
async function recordLogHead(dir: string, segments: readonly ScannedSegment[], head: LogHead | undefined): Promise<void> {
  const newest = segments.at(-1);
  if (!newest || (head === undefined && segments.every((s) => s.validEnd === 0))) return;
  const previous = segments.at(-2);
  const wanted: LogHead = {
    newest: newest.id,
    ...(previous ? { sealed: { first: previous.id, records: previous.seqs, bytes: previous.validEnd } } : {}),
  };
  if (!sameLogHead(head, wanted)) await writeLogHead(nodeLogFileSystem, dir, wanted);
}

/** Where compaction may cut: the first sequence number this graph still needs from the log. */
export function firstNeededSeq(graph: LiveGraph): number {
  if (graph.snapVersion < 0) return graph.createdSeq;
  return graph.seqs[0] ?? Number.POSITIVE_INFINITY;
}
