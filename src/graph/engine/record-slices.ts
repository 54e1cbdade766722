import type { LogRecord } from './persistence-port.ts';
import type { SlicedWork } from './work-slices.ts';

/** Mutations encoded or copied between two points where the work may pause. */
const RECORD_STEP = 64;

/**
 * The JSON text of a log record, exactly as `JSON.stringify(record)` writes it, built as sliced work
 * (work-slices.ts): a batch's mutations are encoded a few at a time, so a batch at the write caps
 * (16 MiB of JSON by default) does not hold the event loop for its whole encoding.
 */
export function* recordJsonSteps(record: LogRecord): SlicedWork<string> {
  if (record.kind !== 'batch') return JSON.stringify(record);
  const mutations = record.batch.mutations;
  const parts: string[] = new Array<string>(mutations.length);
  for (let i = 0; i < mutations.length; i++) {
    if (i % RECORD_STEP === RECORD_STEP - 1) yield;
    parts[i] = JSON.stringify(mutations[i]);
  }
  return objectJson(record, (key, value) => (key === 'batch' ? objectJson(value as object, (k, v) => (k === 'mutations' ? `[${parts.join(',')}]` : JSON.stringify(v))) : JSON.stringify(value)));
}

/** An object's JSON with each entry's value written by `write` (entries JSON.stringify would drop are dropped). */
function objectJson(object: object, write: (key: string, value: unknown) => string | undefined): string {
  const entries: string[] = [];
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    entries.push(`${JSON.stringify(key)}:${write(key, value)!}`);
  }
  return `{${entries.join(',')}}`;
}

/**
 * A deep copy of a log record (as `structuredClone(record)`), built as sliced work: a batch's
 * mutations are copied a few at a time.
 */
export function* cloneRecordSteps(record: LogRecord): SlicedWork<LogRecord> {
  if (record.kind !== 'batch') return structuredClone(record);
  const mutations = record.batch.mutations;
  const copies: (typeof mutations)[number][] = new Array(mutations.length);
  for (let i = 0; i < mutations.length; i++) {
    if (i % RECORD_STEP === RECORD_STEP - 1) yield;
    copies[i] = structuredClone(mutations[i]!);
  }
  // The rest of the record (a few fields) in one copy, with the copied mutations in their place.
  const copy = structuredClone({ ...record, batch: { ...record.batch, mutations: [] } });
  (copy.batch as { mutations: typeof copies }).mutations = copies;
  return copy;
}
