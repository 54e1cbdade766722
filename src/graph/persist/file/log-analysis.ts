import { basename } from 'node:path';
import type { LogRecord } from '../../engine/index.ts';
import { cutBefore, recordRange, type LogCut, type LossFinding } from './acknowledged-loss.ts';
import { LOG_HEAD_FILE, type LogHead } from './log-head.ts';
import { describeRecord, holdsValidFrame, type ScannedSegment, type SegmentEntry } from './log-scan.ts';
import { segmentFile } from './log-files.ts';
import type { SnapshotFile } from './snapshot-file.ts';

/**
 * Reads the log as a whole against every durable statement of how far it went (the next segment's
 * name, LOG-HEAD, each snapshot's version and the log position it was written at) and finds where
 * its intact part ends. Pure: it reads nothing and changes nothing; recovery decides what to do.
 */

/** One incarnation of a graph name as the kept part of the log shows it. */
interface Incarnation {
  /** Sequence number of its createGraph; undefined when that lies before the log (compacted away). */
  readonly createdSeq: number | undefined;
  dropped: boolean;
  /** Its records in the log, in order. */
  readonly records: { seq: number; record: LogRecord }[];
  /** The highest version it has reached: its last batch's, or the snapshot it resumed from at a loss marker. */
  version: number;
  /** Where it first appears, when that is a batch (its createGraph is not in the log). */
  readonly firstBatch: { readonly at: LogCut; readonly seq: number; readonly version: number; readonly file: string } | undefined;
}

export interface LogAnalysis {
  /** Evidence of lost acknowledged records, in the order found; empty when the log is whole. */
  readonly findings: LossFinding[];
  /** Where the intact part ends when something before the log's end is missing or damaged. */
  readonly cut: LogCut | undefined;
  /** The incarnations of every name, as the intact part shows them. */
  readonly incarnations: Map<string, Incarnation>;
  /** The snapshot each live name restores from. */
  readonly chosen: Map<string, SnapshotFile>;
  /** The sequence number after the intact part's last. */
  readonly endSeq: number;
  /** The first sequence number the log still holds (after compaction). */
  readonly firstSeq: number;
}

interface Problem {
  readonly finding: LossFinding;
  readonly cut: LogCut;
}

export function analyseLog(segments: readonly ScannedSegment[], snapshots: readonly SnapshotFile[], head: LogHead | undefined): LogAnalysis {
  const findings: LossFinding[] = [];
  let cut: LogCut | undefined;
  const cutAt = (finding: LossFinding): void => {
    findings.push(finding);
    if (finding.cut && cutBefore(finding.cut, cut)) cut = finding.cut;
  };
  for (const finding of segmentFindings(segments, head)) cutAt(finding);

  // Replay the intact part; a record that cannot follow what precedes it moves the cut back to it.
  let replay = replayLog(segments, snapshots, cut);
  for (let problem = firstProblem(segments, snapshots, replay); problem; problem = firstProblem(segments, snapshots, replay)) {
    cutAt({ ...problem.finding, cut: problem.cut });
    replay = replayLog(segments, snapshots, cut);
  }
  for (const finding of snapshotFindings(segments, snapshots, replay)) cutAt(finding);
  return { findings, cut, incarnations: replay.incarnations, chosen: replay.chosen, endSeq: replay.endSeq, firstSeq: replay.firstSeq };
}

// ---- what the segments and LOG-HEAD say about each other -----------------------------------------

function segmentFindings(segments: readonly ScannedSegment[], head: LogHead | undefined): LossFinding[] {
  // LOG-HEAD first: when it has something to say, it says the most (a swap, a deleted segment).
  const findings = head ? headFindings(segments, head) : [];
  const reported = new Set(findings.map((f) => f.file));
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const next = segments[i + 1];
    const lastHeld = s.id + s.seqs - 1;
    if (s.damage) {
      const later = s.damage.validAfter !== undefined
        ? `${s.name} at byte ${s.damage.validAfter}`
        : segments.slice(i + 1).filter(holdsValidFrame).map((l) => `${l.name} at byte ${l.entries[0]?.offset ?? l.damage!.validAfter}`)[0];
      if (later !== undefined) {
        findings.push({
          kind: 'damage', file: s.name, cut: { segment: i, entry: s.entries.length },
          expected: { file: s.name, record: lastHeld + 1 }, holds: { file: s.name, record: lastHeld },
          message: `${s.name} has a ${s.damage.what} at byte ${s.damage.offset}, and valid records follow (${later})`,
        });
        continue;
      }
    }
    if (!next || reported.has(s.name)) continue;
    // A segment is started only once the one before it is durable whole, so its name says where that one ends.
    const expectedLast = next.id - 1;
    const damaged = s.damage ? ` (it ends in a ${s.damage.what} at byte ${s.damage.offset})` : '';
    if (lastHeld < expectedLast) {
      findings.push({
        kind: 'short-segment', file: s.name, cut: { segment: i, entry: s.entries.length },
        expected: { file: next.name, record: expectedLast }, holds: { file: s.name, ...lastPosition(s) },
        message: `${s.name} ${holdsText(s)}${damaged}, but the next segment, ${next.name}, starts at record ${next.id}: ` +
          `${recordRange(lastHeld + 1, expectedLast)} ${lastHeld + 1 === expectedLast ? 'is' : 'are'} missing`,
      });
    } else if (lastHeld > expectedLast) {
      findings.push({
        kind: 'renamed-segment', file: s.name, cut: { segment: i, entry: 0 },
        expected: { file: next.name, record: expectedLast }, holds: { file: s.name, record: lastHeld },
        message: `${s.name} holds records up to ${lastHeld}, but the next segment, ${next.name}, starts at record ${next.id}: ` +
          'the two overlap, so segment files were renamed or mixed up',
      });
    }
  }
  return findings;
}

function headFindings(segments: readonly ScannedSegment[], head: LogHead): LossFinding[] {
  const findings: LossFinding[] = [];
  const sealedIndex = head.sealed ? segments.findIndex((s) => s.id === head.sealed!.first) : -1;
  if (head.sealed && sealedIndex >= 0) {
    const sealed = head.sealed;
    const s = segments[sealedIndex]!;
    const sealedLast = sealed.first + sealed.records - 1;
    if (s.seqs !== sealed.records || s.bytes !== sealed.bytes) {
      // The one newer segment with exactly the sealed size is the sealed one under another name.
      const lookalikes = segments.filter((o) => o.id > s.id && o.seqs === sealed.records && o.bytes === sealed.bytes);
      const lookalike = lookalikes.length === 1 ? lookalikes[0] : undefined;
      // Fewer records and fewer bytes, and no lookalike: cut short. Anything else: another file under this name.
      const short = s.seqs < sealed.records && s.bytes < sealed.bytes && !lookalike;
      const why = lookalike
        ? `: ${lookalike.name} has exactly that size, so segment files were swapped or renamed`
        : short ? `: ${recordRange(s.id + s.seqs, sealedLast)} ${s.id + s.seqs === sealedLast ? 'is' : 'are'} missing` : ': it was replaced or renamed';
      findings.push({
        kind: short ? 'short-segment' : 'renamed-segment', file: s.name,
        cut: { segment: sealedIndex, entry: short ? s.entries.length : 0 },
        expected: { file: s.name, record: sealedLast }, holds: { file: s.name, ...lastPosition(s) },
        message: `${s.name} was sealed holding ${recordRange(sealed.first, sealedLast)} in ${sealed.bytes} bytes (${LOG_HEAD_FILE}), ` +
          `but it ${holdsText(s)} in ${s.bytes} bytes${why}`,
      });
    }
  }
  const newest = segments.at(-1);
  if (!newest || newest.id < head.newest) {
    findings.push({
      kind: 'missing-segment', file: LOG_HEAD_FILE, reached: head.newest,
      expected: { file: segmentFile(head.newest), record: head.newest }, holds: newest ? { file: newest.name, ...lastPosition(newest) } : {},
      message: `${LOG_HEAD_FILE} says the log went on into ${segmentFile(head.newest)}, which is missing` +
        (newest ? `: the log ends at record ${newest.id + newest.seqs - 1} in ${newest.name}${lastText(newest)}` : ': no segment is left') +
        `, and every record from ${head.newest} on is lost (how many is not known)`,
    });
  }
  return findings;
}

function lastRecord(s: ScannedSegment, before = s.entries.length): LogRecord | undefined {
  for (let j = before - 1; j >= 0; j--) {
    const e = s.entries[j]!;
    if (e.kind === 'record') return e.record;
  }
  return undefined;
}

function positionOf(record: LogRecord | undefined): { graph?: string; version?: number } {
  if (!record) return {};
  return record.kind === 'batch' ? { graph: record.batch.graph, version: record.batch.version } : { graph: record.graph, version: 0 };
}

function lastPosition(s: ScannedSegment): { record: number; graph?: string; version?: number } {
  return { record: s.id + s.seqs - 1, ...positionOf(lastRecord(s)) };
}

function lastText(s: ScannedSegment): string {
  const last = lastRecord(s);
  return last ? ` (${describeRecord(last)})` : '';
}

function holdsText(s: ScannedSegment): string {
  if (s.seqs === 0) return 'holds no record';
  const last = lastRecord(s);
  return `holds ${recordRange(s.id, s.id + s.seqs - 1)}${last ? ` (the last one ${describeRecord(last)})` : ''}`;
}

// ---- replaying the intact part ---------------------------------------------------------------

interface Replay {
  readonly incarnations: Map<string, Incarnation>;
  readonly chosen: Map<string, SnapshotFile>;
  /** Sequence numbers of createGraph records, with their graph. */
  readonly creations: Map<number, string>;
  /** Sequence ranges [from, to) covered by loss markers. */
  readonly lost: [number, number][];
  readonly endSeq: number;
  readonly firstSeq: number;
  /** The first record that cannot follow what the log holds before it. */
  readonly problem: Problem | undefined;
}

function replayLog(segments: readonly ScannedSegment[], snapshots: readonly SnapshotFile[], cut: LogCut | undefined): Replay {
  const incarnations = new Map<string, Incarnation>();
  const creations = new Map<number, string>();
  const lost: [number, number][] = [];
  const byName = snapshotsByName(snapshots);
  let endSeq = 1;
  let firstSeq: number | undefined;
  let problem: Problem | undefined;
  outer: for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const limit = cut && i === cut.segment ? cut.entry : s.entries.length;
    if (cut && (i > cut.segment || (i === cut.segment && limit === 0))) break;
    firstSeq ??= s.id;
    endSeq = s.id;
    for (let j = 0; j < limit; j++) {
      const entry = s.entries[j]!;
      if (entry.kind === 'lost') {
        const to = entry.seq + entry.marker.records;
        lost.push([entry.seq, to]);
        resumeAtMarker(incarnations, byName, entry.seq, to);
        endSeq = to;
        continue;
      }
      const found = applyRecord(incarnations, creations, entry, s.name, { segment: i, entry: j });
      if (found) {
        problem = found;
        break outer;
      }
      endSeq = entry.seq + 1;
    }
  }
  const chosen = new Map<string, SnapshotFile>();
  const names = new Set([...incarnations.keys(), ...byName.keys()]);
  for (const name of names) {
    const inc = incarnations.get(name);
    if (inc?.dropped) continue;
    const candidates = byName.get(name) ?? [];
    const snapshot = inc === undefined || inc.createdSeq === undefined
      ? candidates.at(-1)
      : candidates.find((s) => s.createdSeq === inc.createdSeq);
    if (snapshot) chosen.set(name, snapshot);
  }
  return { incarnations, chosen, creations, lost, endSeq, firstSeq: firstSeq ?? endSeq, problem };
}

/** Each graph name's snapshot files, oldest incarnation first. */
function snapshotsByName(snapshots: readonly SnapshotFile[]): Map<string, SnapshotFile[]> {
  const byName = new Map<string, SnapshotFile[]>();
  for (const s of [...snapshots].sort((a, b) => a.createdSeq - b.createdSeq)) {
    const list = byName.get(s.header.graph);
    if (list) list.push(s);
    else byName.set(s.header.graph, [s]);
  }
  return byName;
}

/**
 * At a loss marker, replay picks up where the operator's start left off: a graph created in the lost
 * range comes back from its snapshot, and a graph whose snapshot is newer than its records resumes
 * at the snapshot's version.
 */
function resumeAtMarker(incarnations: Map<string, Incarnation>, byName: ReadonlyMap<string, SnapshotFile[]>, from: number, to: number): void {
  for (const [name, candidates] of byName) {
    const createdInGap = candidates.filter((s) => s.createdSeq >= from && s.createdSeq < to).at(-1);
    if (createdInGap) {
      incarnations.set(name, { createdSeq: createdInGap.createdSeq, dropped: false, records: [], version: createdInGap.header.version, firstBatch: undefined });
      continue;
    }
    const inc = incarnations.get(name);
    if (!inc || inc.dropped) continue;
    const own = inc.createdSeq === undefined
      ? candidates.filter((s) => s.createdSeq < from).at(-1)
      : candidates.find((s) => s.createdSeq === inc.createdSeq);
    if (own) inc.version = Math.max(inc.version, own.header.version);
  }
}

function applyRecord(incarnations: Map<string, Incarnation>, creations: Map<number, string>, entry: SegmentEntry & { kind: 'record' }, file: string, at: LogCut): Problem | undefined {
  const { seq, record } = entry;
  const name = record.kind === 'batch' ? record.batch.graph : record.graph;
  const inc = incarnations.get(name);
  const problem = (expected: { graph: string; version?: number }, message: string): Problem => ({
    cut: at,
    finding: {
      kind: 'out-of-order', file, expected: { file, record: seq, ...expected }, holds: { file, record: seq, ...positionOf(record) },
      message: `record ${seq} in ${file} is ${describeRecord(record)}, but ${message}`,
    },
  });
  if (record.kind === 'createGraph') {
    if (inc && !inc.dropped) {
      return problem({ graph: name, version: inc.version + 1 },
        `the log already holds ${JSON.stringify(name)} (at version ${inc.version}) with no dropGraph before it: records are out of order`);
    }
    incarnations.set(name, { createdSeq: seq, dropped: false, records: [{ seq, record }], version: 0, firstBatch: undefined });
    creations.set(seq, name);
    return undefined;
  }
  if (record.kind === 'dropGraph') {
    if (inc) inc.dropped = true;
    else incarnations.set(name, { createdSeq: undefined, dropped: true, records: [], version: 0, firstBatch: undefined });
    return undefined;
  }
  const version = record.batch.version;
  if (inc?.dropped) return problem({ graph: name }, `the log dropped ${JSON.stringify(name)} before it`);
  if (!inc) {
    incarnations.set(name, { createdSeq: undefined, dropped: false, records: [{ seq, record }], version, firstBatch: { at, seq, version, file } });
    return undefined;
  }
  if (version !== inc.version + 1) {
    return problem({ graph: name, version: inc.version + 1 },
      `the log holds ${JSON.stringify(name)} at version ${inc.version} before it: ${version > inc.version ? 'records are missing' : 'records are out of order'}`);
  }
  inc.records.push({ seq, record });
  inc.version = version;
  return undefined;
}

/**
 * The earliest record of the intact part that nothing before it explains: a record replay could not
 * apply, a graph whose batches start without its creation or a snapshot to start from, or a
 * createGraph that a snapshot's name says is something else.
 */
function firstProblem(segments: readonly ScannedSegment[], snapshots: readonly SnapshotFile[], replay: Replay): Problem | undefined {
  const problems: Problem[] = replay.problem ? [replay.problem] : [];
  for (const [name, inc] of replay.incarnations) {
    const start = inc.firstBatch;
    if (inc.dropped || !start) continue;
    const snapshot = replay.chosen.get(name);
    if (snapshot && snapshot.header.version >= start.version - 1) continue;
    const missing = snapshot
      ? `the newest snapshot of ${JSON.stringify(name)} (${snapshotName(snapshot)}) is at version ${snapshot.header.version}: versions ${snapshot.header.version + 1}–${start.version - 1} are missing`
      : `neither the creation of ${JSON.stringify(name)} nor a snapshot of it is stored`;
    problems.push({
      cut: start.at,
      finding: {
        kind: 'out-of-order', file: start.file,
        expected: { file: start.file, graph: name, version: snapshot ? snapshot.header.version + 1 : 0 },
        holds: { file: start.file, record: start.seq, graph: name, version: start.version },
        message: `record ${start.seq} in ${start.file} is batch ${JSON.stringify(name)} v${start.version}, but ${missing}`,
      },
    });
  }
  for (const s of snapshots) {
    const created = s.createdSeq;
    if (created < replay.firstSeq || created >= replay.endSeq || replay.lost.some(([from, to]) => created >= from && created < to)) continue;
    if (replay.creations.get(created) === s.header.graph) continue;
    const at = locate(segments, created);
    if (!at) continue;
    const entry = segments[at.segment]!.entries[at.entry]!;
    const file = segments[at.segment]!.name;
    problems.push({
      cut: at,
      finding: {
        kind: 'out-of-order', file, expected: { file, record: created, graph: s.header.graph, version: 0 },
        holds: { file, record: created, ...(entry.kind === 'record' ? positionOf(entry.record) : {}) },
        message: `${snapshotName(s)} is of graph ${JSON.stringify(s.header.graph)} created at record ${created}, but record ${created} in ${file} is ` +
          `${entry.kind === 'record' ? describeRecord(entry.record) : 'a loss marker'}: segment files were renamed or mixed up`,
      },
    });
  }
  return problems.sort((a, b) => (cutBefore(a.cut, b.cut) ? -1 : 1))[0];
}

function locate(segments: readonly ScannedSegment[], seq: number): LogCut | undefined {
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (seq < s.id || seq >= s.id + s.seqs) continue;
    const entry = s.entries.findIndex((e) => e.seq === seq && e.kind === 'record');
    return entry >= 0 ? { segment: i, entry } : undefined;
  }
  return undefined;
}

// ---- what the snapshots say --------------------------------------------------------------------

function snapshotName(s: SnapshotFile): string {
  return basename(s.path);
}

/**
 * A snapshot is only ever written of acknowledged, hence durable, records: the log went at least as
 * far as its graph's creation, the log position it was written at, and its graph's version.
 */
function snapshotFindings(segments: readonly ScannedSegment[], snapshots: readonly SnapshotFile[], replay: Replay): LossFinding[] {
  const findings: LossFinding[] = [];
  const lastHeld = replay.endSeq - 1;
  // The segment the intact part ends in: the last one starting before its end.
  const endingIn = segments.findLast((s) => s.id < replay.endSeq) ?? segments[0];
  const ending = endingIn ? ` in ${endingIn.name}` : ' (no segment is left)';
  for (const s of snapshots) {
    const name = s.header.graph;
    const reached = Math.max(s.createdSeq, s.loggedThrough ?? 0);
    const inc = replay.incarnations.get(name);
    const live = replay.chosen.get(name) === s && inc !== undefined && !inc.dropped;
    const behindVersion = live && inc.version < s.header.version;
    if (reached <= lastHeld && !behindVersion) continue;
    const wrote = s.loggedThrough !== undefined ? ` and was written when the log held records up to ${s.loggedThrough}` : ` (created at record ${s.createdSeq})`;
    const holds = behindVersion
      ? `, where ${JSON.stringify(name)} is at version ${inc.version}`
      : inc && !inc.dropped ? '' : `, which holds no record of ${JSON.stringify(name)}`;
    findings.push({
      kind: 'snapshot-ahead', file: snapshotName(s), reached,
      expected: { file: snapshotName(s), record: reached, graph: name, version: s.header.version },
      holds: { record: lastHeld, graph: name, ...(inc && !inc.dropped ? { version: inc.version } : {}) },
      message: `${snapshotName(s)} holds graph ${JSON.stringify(name)} at version ${s.header.version}${wrote}, ` +
        `but the log ends at record ${lastHeld}${ending}${holds}`,
    });
  }
  return findings;
}
