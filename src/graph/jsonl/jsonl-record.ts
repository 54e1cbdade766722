import { ToolgraphError, describeValue, isToolgraphError } from '../../errors/index.ts';
import { assertGraphqlName, assertNodeId, kindOf, type MutationInput, type Properties } from '../engine/index.ts';

/** One record of a JSON Lines graph: a node `{"label","id","props"}` or an edge `{"src","tgt","type"}`. */
export type JsonlRecord =
  | { readonly kind: 'node'; readonly id: string; readonly label: string; readonly props: Properties }
  | { readonly kind: 'edge'; readonly src: string; readonly tgt: string; readonly type: string };

const NODE_KEYS = ['label', 'id', 'props'];
const EDGE_KEYS = ['src', 'tgt', 'type'];

/** Whether a line holds no record (only whitespace); such lines are skipped and not counted. */
export function isBlankLine(text: string): boolean {
  return text.trim() === '';
}

/**
 * Parses and checks one non-blank line: its JSON, its shape, names, ids and values (everything that
 * does not depend on a graph). Errors name `source:line` and carry `details.line`.
 */
export function parseJsonlRecord(text: string, source: string, line: number): JsonlRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ToolgraphError('TG_BAD_REQUEST', `${source}:${line}: not valid JSON (${(error as Error).message}).`, { details: { line } });
  }
  try {
    return checkRecord(value);
  } catch (error) {
    throw atLine(error, source, line);
  }
}

/** Prefixes a ToolgraphError's message with `source:line` and puts the line into its details. */
export function atLine(error: unknown, source: string, line: number, extra: Record<string, unknown> = {}): unknown {
  if (!isToolgraphError(error)) return error;
  const message = error.message.replace(/^mutations\[\d+\]: /, '');
  const { index: _index, ...details } = error.details ?? {};
  return new ToolgraphError(error.code, `${source}:${line}: ${message}`, { details: { ...details, ...extra, line }, cause: error });
}

function checkRecord(value: unknown): JsonlRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `expected a node {"label","id","props"} or an edge {"src","tgt","type"}; got ${describeValue(value)}.`);
  }
  const record = value as Record<string, unknown>;
  const isEdge = Object.hasOwn(record, 'src');
  const allowed = isEdge ? EDGE_KEYS : NODE_KEYS;
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw new ToolgraphError('TG_BAD_REQUEST', `a ${isEdge ? 'edge' : 'node'} line takes ${allowed.join(', ')}; got an unknown field ${describeValue(key)}.`);
    }
  }
  if (isEdge) {
    assertNodeId(record.src);
    assertNodeId(record.tgt);
    assertGraphqlName('edge type', record.type);
    return { kind: 'edge', src: record.src, tgt: record.tgt, type: record.type };
  }
  assertGraphqlName('label', record.label);
  assertNodeId(record.id);
  const props = record.props ?? {};
  if (typeof props !== 'object' || props === null || Array.isArray(props)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `props: expected an object of property values; got ${describeValue(props)}.`);
  }
  for (const [name, v] of Object.entries(props)) {
    assertGraphqlName('property name', name);
    kindOf(v, `props.${name}`);
  }
  return { kind: 'node', id: record.id, label: record.label, props: props as Properties };
}

/**
 * Reads a line that already passed parseJsonlRecord (the import's second pass): JSON.parse and the
 * fields, no checks (the engine checks every mutation again). Undefined when it is not even a JSON
 * object any more, i.e. the file changed.
 */
/** The fields of a line parseJsonlRecord accepted, edge and node alike. */
interface CheckedFields {
  readonly src: string;
  readonly tgt: string;
  readonly type: string;
  readonly id: string;
  readonly label: string;
  readonly props?: Extract<JsonlRecord, { kind: 'node' }>['props'];
}

export function parseCheckedRecord(text: string): JsonlRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  // The first pass checked every field of this line; the file changing meanwhile is the engine's to catch.
  const r = value as CheckedFields;
  return Object.hasOwn(r, 'src')
    ? { kind: 'edge', src: r.src, tgt: r.tgt, type: r.type }
    : { kind: 'node', id: r.id, label: r.label, props: r.props ?? {} };
}

/** The mutation a record becomes. */
export function mutationOf(record: JsonlRecord): MutationInput {
  return record.kind === 'node'
    ? { op: 'createNode', id: record.id, label: record.label, props: record.props }
    : { op: 'addEdge', src: record.src, tgt: record.tgt, type: record.type };
}
