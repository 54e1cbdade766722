import { mkdir, open, readFile, rename, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../log/index.ts';
import type { LogRecord } from '../../engine/index.ts';
import { ACCEPT_DATA_LOSS, recordRange, type LogCut } from './acknowledged-loss.ts';
import type { LogAnalysis } from './log-analysis.ts';
import { nodeLogFileSystem, writeAllAndSync } from './log-file-system.ts';
import { segmentFile, syncDirectory } from './log-files.ts';
import { writeLogHead, type LogHead } from './log-head.ts';
import { readableRecords, type ScannedSegment } from './log-scan.ts';
import { lossMarker } from './loss-marker.ts';
import { encodeFrame } from './record-frame.ts';
import type { SnapshotFile } from './snapshot-file.ts';

export interface AcceptDataLossInput {
  readonly dir: string;
  readonly segments: readonly ScannedSegment[];
  readonly analysis: LogAnalysis;
  readonly snapshots: readonly SnapshotFile[];
  readonly head: LogHead | undefined;
  readonly logger: Logger;
  readonly now: Date;
}

/**
 * What `--accept-data-loss` does to a log whose analysis found lost acknowledged records: it keeps
 * the intact part, moves everything after it (whole segments, and the cut-off bytes of the segment it
 * ends in) into `lost-<time>/` beside the log, and ends the kept part with a loss marker standing for
 * every sequence number the evidence says was used, so no later record reuses one and the next start
 * finds the log whole. Each finding and a summary are logged at error level. Nothing is deleted.
 */
export async function acceptDataLoss(input: AcceptDataLossInput): Promise<void> {
  const { dir, segments, analysis, logger } = input;
  const cut: LogCut = analysis.cut ?? { segment: Math.max(0, segments.length - 1), entry: segments.at(-1)?.entries.length ?? 0 };
  // The segment that keeps the intact part's end, and where in it that end lies; -1: none is kept.
  const keep = segments.length === 0 ? -1 : cut.entry > 0 ? cut.segment : cut.segment - 1;
  const kept = keep >= 0 ? segments[keep]! : undefined;
  const keepAt = kept ? (keep === cut.segment ? kept.entries[cut.entry]?.offset ?? kept.validEnd : kept.validEnd) : 0;

  let nextSeq = analysis.endSeq;
  for (const f of analysis.findings) if (f.reached !== undefined) nextSeq = Math.max(nextSeq, f.reached + 1);
  for (const s of input.snapshots) nextSeq = Math.max(nextSeq, s.createdSeq + 1, (s.loggedThrough ?? 0) + 1);
  for (const s of segments.slice(keep + 1)) nextSeq = Math.max(nextSeq, s.id + s.seqs);
  if (input.head) nextSeq = Math.max(nextSeq, input.head.newest);

  const lostDir = await makeLostDir(dir, input.now);
  const lostName = lostDir.slice(dir.length + 1);
  const setAside: string[] = [];
  const droppedFrames: LogRecord[] = [];
  if (kept && kept.bytes > keepAt) {
    const name = `${kept.name}.from-byte-${keepAt}`;
    const tail = (await readFile(kept.path)).subarray(keepAt);
    droppedFrames.push(...readableRecords(tail));
    await writeDurably(join(lostDir, name), tail);
    setAside.push(name);
  }
  for (const s of segments.slice(keep + 1)) {
    droppedFrames.push(...readableRecords(await readFile(s.path)));
    await rename(s.path, join(lostDir, s.name));
    setAside.push(s.name);
  }
  const dropped = droppedRecords(droppedFrames);
  const report = {
    acceptedAt: input.now.toISOString(),
    keptThrough: analysis.endSeq - 1,
    markedLost: { from: analysis.endSeq, to: nextSeq - 1 },
    findings: analysis.findings.map((f) => ({ kind: f.kind, file: f.file, expected: f.expected, holds: f.holds, message: f.message })),
    setAside,
    droppedRecords: dropped,
  };
  await writeDurably(join(lostDir, 'lost.json'), Buffer.from(`${JSON.stringify(report, null, 2)}\n`, 'utf8'));
  await syncDirectory(lostDir);
  await syncDirectory(dir);

  if (kept) {
    await truncate(kept.path, keepAt);
    const handle = await open(kept.path, 'r+');
    try {
      const frame = encodeFrame(Buffer.from(JSON.stringify(lossMarker(nextSeq - analysis.endSeq, input.now.toISOString())), 'utf8'));
      let written = 0;
      while (written < frame.length) written += (await handle.write(frame, written, frame.length - written, keepAt + written)).bytesWritten;
      await handle.datasync();
    } finally {
      await handle.close();
    }
  } else {
    // Nothing of the log is intact: it starts again after every number the evidence names.
    await (await open(join(dir, segmentFile(nextSeq)), 'wx', 0o600)).close();
  }
  await syncDirectory(dir);
  const previous = keep >= 1 ? segments[keep - 1] : undefined;
  await writeLogHead(nodeLogFileSystem, dir, {
    newest: kept ? kept.id : nextSeq,
    ...(previous ? { sealed: { first: previous.id, records: previous.seqs, bytes: previous.bytes } } : {}),
  });

  for (const f of analysis.findings) {
    logger.error({ kind: f.kind, file: f.file, expected: f.expected, holds: f.holds }, `accepted the loss of acknowledged records: ${f.message}`);
  }
  logger.error({ keptThrough: report.keptThrough, markedLost: report.markedLost, setAsideIn: lostName, setAside, droppedRecords: dropped },
    `started without acknowledged records (${ACCEPT_DATA_LOSS}): the graph log keeps records up to ${report.keptThrough}; ` +
    (nextSeq > analysis.endSeq ? `${recordRange(analysis.endSeq, nextSeq - 1)} marked lost` : 'a loss marker ends it') +
    (setAside.length > 0 ? `; moved ${setAside.join(', ')} into ${lostName}/` : '') +
    (dropped.length > 0 ? `; the records set aside hold ${dropped.map((d) => d.what).join(', ')}` : ''));
}

/** What the set-aside records held, per graph (what the operator lost, as far as the files tell). */
function droppedRecords(records: readonly LogRecord[]): { graph: string; what: string }[] {
  const byGraph = new Map<string, { min: number; max: number; batches: number; other: string[] }>();
  for (const record of records) {
    const graph = record.kind === 'batch' ? record.batch.graph : record.graph;
    const info = byGraph.get(graph) ?? { min: Infinity, max: -Infinity, batches: 0, other: [] };
    if (record.kind === 'batch') {
      info.min = Math.min(info.min, record.batch.version);
      info.max = Math.max(info.max, record.batch.version);
      info.batches++;
    } else {
      info.other.push(record.kind);
    }
    byGraph.set(graph, info);
  }
  return [...byGraph].map(([graph, { min, max, batches, other }]) => {
    const parts = batches > 0 ? [`batches v${min}–v${max} (${batches})`] : [];
    parts.push(...other);
    return { graph, what: `${JSON.stringify(graph)}: ${parts.join(', ')}` };
  });
}

async function makeLostDir(dir: string, now: Date): Promise<string> {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  for (let n = 1; ; n++) {
    const path = join(dir, n === 1 ? `lost-${stamp}` : `lost-${stamp}-${n}`);
    try {
      await mkdir(path, { mode: 0o700 });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

async function writeDurably(path: string, data: Buffer): Promise<void> {
  await writeAllAndSync(await nodeLogFileSystem.open(path, 'wx', 0o600), data);
}
