/**
 * The frame an operator's `--accept-data-loss` leaves in the graph log where acknowledged records
 * went missing: `{"kind":"lost","records":k,"at":…}`. It stands for `k` sequence numbers (0 or more),
 * so the log stays numbered without a hole, and it marks the place where replay stops expecting
 * the records before it to continue (a graph resumes at its snapshot's version; a graph created in
 * the lost range comes back from its snapshot). Logs without one read exactly as before; versions
 * of toolgraph older than the marker refuse a log that holds one (they read it as a malformed batch).
 */
export interface LossMarker {
  readonly kind: 'lost';
  /** How many sequence numbers the lost range covers. */
  readonly records: number;
  /** When the loss was accepted (ISO 8601). */
  readonly at: string;
}

export function lossMarker(records: number, at: string): LossMarker {
  return { kind: 'lost', records, at };
}

export function isLossMarker(value: unknown): value is LossMarker {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v['kind'] === 'lost' && Number.isSafeInteger(v['records']) && (v['records'] as number) >= 0 && typeof v['at'] === 'string';
}
