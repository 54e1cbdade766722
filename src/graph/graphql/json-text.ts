import type { SlicedWork } from '../engine/index.ts';

/** Values written between two points where the writing may pause. */
const STEP_VALUES = 256;
/** Characters of strings written between two such points (a 1 MB property repeated under aliases is many of them). */
const STEP_CHARS = 256 * 1024;

/**
 * The JSON text of a GraphQL result's data, exactly as `JSON.stringify` writes it, built as sliced
 * work (work-slices.ts): it may pause every few hundred values or few hundred KiB of strings, so a
 * result of megabytes (a 1 MB string under a dozen aliases, thousands of nodes) is written over
 * several turns of the event loop instead of one.
 */
export function* jsonTextSteps(value: unknown): SlicedWork<string> {
  const parts: string[] = [];
  const done = { values: 0, chars: 0 };
  yield* write(value, parts, done, false);
  return parts.join('');
}

function* write(input: unknown, parts: string[], done: { values: number; chars: number }, inArray: boolean): SlicedWork<void> {
  let value = input;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (++done.values >= STEP_VALUES || done.chars >= STEP_CHARS) {
    done.values = 0;
    done.chars = 0;
    yield;
  }
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value) as string | undefined;
    // Only called for array items and object entries JSON.stringify keeps: undefined in an array is null.
    parts.push(text ?? (inArray ? 'null' : ''));
    if (typeof value === 'string') done.chars += value.length;
    return;
  }
  if (Array.isArray(value)) {
    parts.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) parts.push(',');
      yield* write(value[i], parts, done, true);
    }
    parts.push(']');
    return;
  }
  parts.push('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry === undefined || typeof entry === 'function' || typeof entry === 'symbol') continue;
    parts.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    yield* write(entry, parts, done, false);
  }
  parts.push('}');
}
