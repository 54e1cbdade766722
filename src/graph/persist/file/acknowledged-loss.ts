import { ToolgraphError } from '../../../errors/index.ts';

/**
 * Where the intact part of the log ends: before entry `entry` of segment `segment` (indexes into the
 * segments as read, in order). Everything from there on is what `--accept-data-loss` sets aside.
 */
export interface LogCut {
  readonly segment: number;
  readonly entry: number;
}

export function cutBefore(a: LogCut, b: LogCut | undefined): boolean {
  return b === undefined || a.segment < b.segment || (a.segment === b.segment && a.entry < b.entry);
}

/** What a position in the log is: a record number, and where known the graph and version it holds. */
interface LogPosition {
  readonly file?: string;
  readonly record?: number;
  readonly graph?: string;
  readonly version?: number;
}

type LossKind =
  /** A damaged frame with valid frames after it (TG_STORAGE_CORRUPT, as before). */
  | 'damage'
  /** A segment holds fewer records than the next segment's name (or LOG-HEAD) says it did. */
  | 'short-segment'
  /** A segment holds more records than the next segment's name allows, or not the bytes it was sealed with. */
  | 'renamed-segment'
  /** LOG-HEAD names a newer segment than any left. */
  | 'missing-segment'
  /** Records that cannot follow what the log holds before them (out of order, or their start is gone). */
  | 'out-of-order'
  /** A snapshot says the log went further than it now does. */
  | 'snapshot-ahead';

/** One piece of durable evidence that acknowledged records are gone. */
export interface LossFinding {
  readonly kind: LossKind;
  /** The file holding the evidence (or the damage). */
  readonly file: string;
  /** What the evidence says the log held, and what it holds. */
  readonly expected: LogPosition;
  readonly holds: LogPosition;
  /** One sentence, naming both. */
  readonly message: string;
  /** Where the log must be cut to keep only its intact part; undefined: at its end. */
  readonly cut?: LogCut;
  /** A sequence number the evidence says was used, so that new records never reuse it. */
  readonly reached?: number;
}

/** The flag and variable that start anyway, as operators see them. */
export const ACCEPT_DATA_LOSS = '--accept-data-loss (TOOLGRAPH_ACCEPT_DATA_LOSS=true)';

/**
 * The refusal: TG_STORAGE_DATA_LOST naming the first finding (TG_STORAGE_CORRUPT when it is damage
 * followed by valid records, as before), with every finding in `details`.
 */
export function refuseToLoseRecords(dir: string, findings: readonly LossFinding[], keptThrough: number): ToolgraphError {
  const first = findings[0]!;
  const more = findings.length > 1
    ? ` Also: ${findings.slice(1, 4).map((f) => f.message).join('; ')}${findings.length > 4 ? `; and ${findings.length - 4} more (see details)` : ''}.`
    : '';
  const keep = keptThrough > 0 ? `record ${keptThrough}` : 'its start (no record is intact)';
  const remedy = `Restore the data directory from a backup (or put back segment files that were moved or renamed), or start once with ${ACCEPT_DATA_LOSS}: ` +
    `it keeps the log up to ${keep}, moves anything after that into a lost-… folder beside it, and logs what was lost.`;
  const details = {
    file: first.file,
    findings: findings.map((f) => ({ kind: f.kind, file: f.file, expected: f.expected, holds: f.holds })),
    keptThrough,
  };
  if (first.kind === 'damage') {
    return new ToolgraphError('TG_STORAGE_CORRUPT',
      `The graph log is corrupt: ${first.message}. Refusing to start rather than lose acknowledged batches.${more} ${remedy}`, { details });
  }
  return new ToolgraphError('TG_STORAGE_DATA_LOST',
    `Refusing to start: the graph log in ${dir} has lost acknowledged records: ${first.message}.${more} ${remedy}`, { details });
}

/** `record 7` or `records 7–9`. */
export function recordRange(from: number, to: number): string {
  return from === to ? `record ${from}` : `records ${from}–${to}`;
}
