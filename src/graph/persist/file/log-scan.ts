import { readFile } from 'node:fs/promises';
import { ToolgraphError } from '../../../errors/index.ts';
import type { LogRecord } from '../../engine/index.ts';
import { isLossMarker, type LossMarker } from './loss-marker.ts';
import { segmentFile } from './log-files.ts';
import { FRAME_HEADER_BYTES, checkFrame, findValidFrame, type FrameDamage } from './record-frame.ts';

/** One valid frame of a segment: a record (one sequence number) or a loss marker (`records` of them). */
export type SegmentEntry =
  | { readonly kind: 'record'; readonly seq: number; readonly offset: number; readonly end: number; readonly record: LogRecord }
  | { readonly kind: 'lost'; readonly seq: number; readonly offset: number; readonly end: number; readonly marker: LossMarker };

export interface ScannedSegment {
  /** Sequence number of its first record: its name. */
  readonly id: number;
  readonly name: string;
  readonly path: string;
  /** The file's length. */
  readonly bytes: number;
  /** Its valid frames, up to the first damage. */
  readonly entries: readonly SegmentEntry[];
  /** How many sequence numbers the entries cover. */
  readonly seqs: number;
  /** Where the valid frames end. */
  readonly validEnd: number;
  /** The first damaged frame, and the offset of a valid frame after it in this file, if any. */
  readonly damage: { readonly what: FrameDamage; readonly offset: number; readonly validAfter: number | undefined } | undefined;
}

function parsePayload(payload: Buffer, where: string): LogRecord | LossMarker {
  try {
    return JSON.parse(payload.toString('utf8')) as LogRecord | LossMarker;
  } catch (error) {
    throw new ToolgraphError('TG_STORAGE_CORRUPT', `${where} passed its checksum but is not valid JSON.`, { cause: error });
  }
}

/** Reads a segment file whole and checks every frame's checksums. */
export async function scanSegment(id: number, path: string): Promise<ScannedSegment> {
  const buf = await readFile(path);
  const name = segmentFile(id);
  const entries: SegmentEntry[] = [];
  let seq = id;
  let offset = 0;
  while (offset < buf.length) {
    const checked = checkFrame(buf, offset);
    if ('damage' in checked) {
      const damage = { what: checked.damage, offset, validAfter: findValidFrame(buf, offset + 1) };
      return { id, name, path, bytes: buf.length, entries, seqs: seq - id, validEnd: offset, damage };
    }
    const value = parsePayload(buf.subarray(offset + FRAME_HEADER_BYTES, checked.end), `Record ${seq} of ${name}`);
    if (isLossMarker(value)) {
      entries.push({ kind: 'lost', seq, offset, end: checked.end, marker: value });
      seq += value.records;
    } else {
      entries.push({ kind: 'record', seq, offset, end: checked.end, record: value });
      seq += 1;
    }
    offset = checked.end;
  }
  return { id, name, path, bytes: buf.length, entries, seqs: seq - id, validEnd: offset, damage: undefined };
}

/**
 * Every record whose frame is whole and valid anywhere in `buf`, skipping damage: what a stretch of
 * log that is being set aside held, as far as it can still be read.
 */
export function readableRecords(buf: Buffer): LogRecord[] {
  const records: LogRecord[] = [];
  let offset: number | undefined = 0;
  while (offset !== undefined && offset < buf.length) {
    const checked = checkFrame(buf, offset);
    if ('damage' in checked) {
      offset = findValidFrame(buf, offset + 1);
      continue;
    }
    try {
      const value = JSON.parse(buf.subarray(offset + FRAME_HEADER_BYTES, checked.end).toString('utf8')) as LogRecord | LossMarker;
      if (!isLossMarker(value)) records.push(value);
    } catch {
      // Passed its checksum yet is not JSON: nothing to report.
    }
    offset = checked.end;
  }
  return records;
}

/** Whether the segment holds any valid frame at all (before or after damage). */
export function holdsValidFrame(segment: ScannedSegment): boolean {
  return segment.entries.length > 0 || segment.damage?.validAfter !== undefined;
}

/** A short description of a record for messages: `batch "g" v16`. */
export function describeRecord(record: LogRecord): string {
  switch (record.kind) {
    case 'batch': return `batch ${JSON.stringify(record.batch.graph)} v${record.batch.version}`;
    case 'createGraph': return `createGraph ${JSON.stringify(record.graph)}`;
    case 'dropGraph': return `dropGraph ${JSON.stringify(record.graph)}`;
  }
}
