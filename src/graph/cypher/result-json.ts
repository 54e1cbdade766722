import { ToolgraphError } from '../../errors/index.ts';
import type { QueryBudget } from '../budget/index.ts';
import type { NodeRecord } from '../engine/index.ts';
import type { RowSink } from './project.ts';
import type { WriteStats } from './update.ts';
import { EdgeRef, NodeRef, type Value, type ValueMap } from './values.ts';

type Resolve = (ref: NodeRef) => NodeRecord | null;

/** `String.prototype.isWellFormed` (Node 20+, typed only from lib ES2024): false when a lone surrogate is present. */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

function string(text: string): string {
  // RFC 8785 has no form for a lone surrogate (the canonicalize package throws on one): refuse it.
  if (!isWellFormed(text)) {
    throw new ToolgraphError('TG_VALUE_INVALID', 'The result holds a string that is not well-formed Unicode (a lone surrogate); results carry well-formed strings only.');
  }
  return JSON.stringify(text);
}

function number(n: number): string {
  if (!Number.isFinite(n)) throw new ToolgraphError('TG_INTERNAL', `A Cypher result holds the number ${n}, which JSON cannot carry.`);
  // ECMAScript's shortest round-trip form is RFC 8785's; JSON.stringify also writes -0 as 0.
  return JSON.stringify(n);
}

/** Object keys in UTF-16 code-unit order, as RFC 8785 sorts them (what `.sort()` does). */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) return keys.sort();
  }
  return keys;
}

/** Per write: the JSON text of nodes already written (a result often repeats a node). */
type NodeTexts = Map<NodeRecord, string>;

function writeNode(out: string[], record: NodeRecord, texts: NodeTexts | null): void {
  const known = texts?.get(record);
  if (known !== undefined) {
    out.push(known);
    return;
  }
  const parts: string[] = ['{'];
  const props = record.props;
  // Committed props are already key-sorted (the engine freezes them so); `id` is merged in its place.
  const keys = sortedKeys(props);
  let idDone = false;
  let first = true;
  for (const key of keys) {
    if (key === 'id') continue;
    if (!idDone && key > 'id') {
      parts.push(first ? '"id":' : ',"id":', string(record.id));
      idDone = true;
      first = false;
    }
    parts.push(first ? '' : ',', string(key), ':');
    writeValue(parts, props[key] as Value, noResolve, null);
    first = false;
  }
  if (!idDone) parts.push(first ? '"id":' : ',"id":', string(record.id));
  parts.push('}');
  const text = parts.join('');
  texts?.set(record, text);
  out.push(text);
}

function noResolve(): NodeRecord | null {
  return null;
}

/** Appends the canonical text of `value` to `out`, in pieces (joined once, not concatenated piece by piece). */
function writeValue(out: string[], value: Value, resolve: Resolve, texts: NodeTexts | null): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string': out.push(string(value)); return;
    case 'number': out.push(number(value)); return;
    case 'boolean': out.push(value ? 'true' : 'false'); return;
  }
  if (value instanceof NodeRef) {
    const record = resolve(value);
    if (record === null) out.push('null');
    else writeNode(out, record, texts);
    return;
  }
  if (value instanceof EdgeRef) {
    const e = value.edge;
    out.push('{"src":', string(e.src), ',"tgt":', string(e.tgt), ',"type":', string(e.type), '}');
    return;
  }
  if (Array.isArray(value)) {
    const list = value as readonly Value[];
    out.push('[');
    for (let i = 0; i < list.length; i++) {
      if (i > 0) out.push(',');
      writeValue(out, list[i]!, resolve, texts);
    }
    out.push(']');
    return;
  }
  const map = value as ValueMap;
  out.push('{');
  let first = true;
  for (const key of sortedKeys(map)) {
    out.push(first ? '' : ',', string(key), ':');
    writeValue(out, map[key]!, resolve, texts);
    first = false;
  }
  out.push('}');
}

/**
 * The RFC 8785 (JCS) text of a runtime value's JSON form (see `toJson` in values.ts): a node is its
 * property map plus `id`, a relationship `{src, tgt, type}`. Byte-identical to
 * `canonicalize(toJson(value))` (a property test holds them together), written in one pass without
 * building the intermediate objects or re-sorting keys the engine already keeps sorted.
 */
export function canonicalValue(value: Value, resolve: Resolve): string {
  const out: string[] = [];
  writeValue(out, value, resolve, null);
  return out.join('');
}

/**
 * Writes a Cypher result as canonical JSON while RETURN produces it, checking the result-size budget
 * as rows arrive, so an oversized result is refused before it is built.
 */
export class ResultJson implements RowSink {
  readonly #resolve: Resolve;
  readonly #budget: QueryBudget;
  readonly #rows: string[] = [];
  readonly #nodes: NodeTexts = new Map();
  #length = 0;

  constructor(resolve: Resolve, budget: QueryBudget) {
    this.#resolve = resolve;
    this.#budget = budget;
  }

  push(values: readonly Value[]): void {
    const parts: string[] = [this.#rows.length === 0 ? '[' : ',['];
    for (let i = 0; i < values.length; i++) {
      if (i > 0) parts.push(',');
      writeValue(parts, values[i]!, this.#resolve, this.#nodes);
    }
    parts.push(']');
    const text = parts.join('');
    this.#rows.push(text);
    this.#length += text.length;
    // UTF-16 length is at most the UTF-8 length: a cheap lower bound while rows arrive.
    this.#budget.checkBytes(this.#length);
  }

  /** The whole result: `{"columns","rows","stats"?,"version"}` with keys in canonical order. */
  finish(columns: readonly string[], version: number, stats?: WriteStats): string {
    let text = `{"columns":${canonicalValue(columns, this.#resolve)},"rows":[${this.#rows.join('')}]`;
    if (stats !== undefined) {
      text += `,"stats":{"nodesCreated":${stats.nodesCreated},"nodesDeleted":${stats.nodesDeleted},"propertiesSet":${stats.propertiesSet},`
        + `"relationshipsCreated":${stats.relationshipsCreated},"relationshipsDeleted":${stats.relationshipsDeleted}}`;
    }
    text += `,"version":${version}}`;
    this.#budget.checkBytes(Buffer.byteLength(text));
    return text;
  }
}
