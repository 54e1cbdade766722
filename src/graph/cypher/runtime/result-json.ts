import { ToolgraphError } from '../../../errors/index.ts';
import type { QueryBudget } from '../../budget/index.ts';
import type { NodeRecord } from '../../engine/index.ts';
import type { RowSink } from './project.ts';
import type { WriteStats } from './update.ts';
import { EdgeRef, NodeRef, PathRef, type Value, type ValueMap } from './values.ts';

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

/**
 * JSON text written in pieces and joined once. With a budget, every piece that can be large (a string,
 * a node's text, an item of a list) is charged before it is made: past `room` code units the write is
 * refused while the text is still unbuilt (one row of `collect($p)` over a cross product would
 * otherwise be gigabytes before its size was known).
 */
class JsonText {
  readonly parts: string[] = [];
  length = 0;
  readonly #budget: QueryBudget | null;
  readonly #room: number;

  constructor(budget: QueryBudget | null, room: number) {
    this.#budget = budget;
    this.#room = room;
  }

  push(piece: string): void {
    this.parts.push(piece);
    this.length += piece.length;
  }

  /** Makes sure `n` more code units fit; refused (TG_QUERY_BUDGET_EXCEEDED, maxResultBytes) when they do not. */
  reserve(n: number): void {
    // Charging what does not fit throws: the budget names the limit and its setting.
    if (this.length + n > this.#room) this.#budget?.chargeBytes(this.length + n);
  }

  /** Tells the budget of `units` of work done writing (items of a long list): its clock is read by the work. */
  work(units: number): void {
    this.#budget?.tick(units);
  }

  /** What is left before the text is refused. */
  get left(): number {
    return this.#room - this.length;
  }

  /** A text for a part written separately (a node's text, kept for reuse), refused as this one would be. */
  sub(): JsonText {
    return new JsonText(this.#budget, this.left);
  }
}

function writeString(out: JsonText, text: string): void {
  out.reserve(text.length + 2);
  out.push(string(text));
}

function writeNode(out: JsonText, record: NodeRecord, texts: NodeTexts | null): void {
  const known = texts?.get(record);
  if (known !== undefined) {
    out.reserve(known.length);
    out.push(known);
    return;
  }
  const node = out.sub();
  node.push('{');
  const props = record.props;
  // Committed props are already key-sorted (the engine freezes them so); `id` is merged in its place.
  const keys = sortedKeys(props);
  let idDone = false;
  let first = true;
  for (const key of keys) {
    if (key === 'id') continue;
    if (!idDone && key > 'id') {
      node.push(first ? '"id":' : ',"id":');
      writeString(node, record.id);
      idDone = true;
      first = false;
    }
    if (!first) node.push(',');
    writeString(node, key);
    node.push(':');
    writeValue(node, props[key] as Value, noResolve, null);
    first = false;
  }
  if (!idDone) {
    node.push(first ? '"id":' : ',"id":');
    writeString(node, record.id);
  }
  node.push('}');
  const text = node.parts.join('');
  texts?.set(record, text);
  out.push(text);
}

/** Items of a list written by one JSON.stringify when they are all finite numbers, booleans or nulls. */
const SCALAR_RUN = 4096;

/** A finite number, a boolean or null: its JSON.stringify text is its RFC 8785 text. */
function plainScalar(item: Value): boolean {
  return item === null || typeof item === 'boolean' || (typeof item === 'number' && Number.isFinite(item));
}

/**
 * A list, item by item, except runs of plain scalars (a list of 450,000 digits, say), which
 * JSON.stringify writes 4,096 at a time: ten times faster than a piece per item, which held the event
 * loop for 200 ms a row. A run's text (at most 4,096 × 24 code units) is built, then its room reserved.
 * Every item counts as work, so the budget's clock (and its stall limit) is read as the list is written.
 */
function writeList(out: JsonText, list: readonly Value[], resolve: Resolve, texts: NodeTexts | null): void {
  out.push('[');
  for (let i = 0; i < list.length;) {
    let end = i;
    const runEnd = Math.min(list.length, i + SCALAR_RUN);
    while (end < runEnd && plainScalar(list[end]!)) end++;
    if (end - i >= 16) {
      const text = JSON.stringify(list.slice(i, end));
      out.reserve(text.length);
      out.push(i > 0 ? `,${text.slice(1, -1)}` : text.slice(1, -1));
      out.work(end - i);
      i = end;
      continue;
    }
    // A short run (scanned once) and the item after it, one by one. Large items reserve their own
    // room; every 64 items, so a long list of small ones stops too.
    for (const stop = Math.max(end, i + 1); i < stop; i++) {
      if ((i & 63) === 63) {
        out.reserve(0);
        out.work(64);
      }
      if (i > 0) out.push(',');
      writeValue(out, list[i]!, resolve, texts);
    }
  }
  out.push(']');
}

function noResolve(): NodeRecord | null {
  return null;
}

/** Appends the canonical text of `value` to `out`, in pieces (joined once, not concatenated piece by piece). */
function writeValue(out: JsonText, value: Value, resolve: Resolve, texts: NodeTexts | null): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string': writeString(out, value); return;
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
    out.push('{"src":');
    writeString(out, e.src);
    out.push(',"tgt":');
    writeString(out, e.tgt);
    out.push(',"type":');
    writeString(out, e.type);
    out.push('}');
    return;
  }
  if (value instanceof PathRef) {
    writeList(out, value.alternating(), resolve, texts);
    return;
  }
  if (Array.isArray(value)) {
    writeList(out, value as readonly Value[], resolve, texts);
    return;
  }
  const map = value as ValueMap;
  out.push('{');
  let first = true;
  for (const key of sortedKeys(map)) {
    if (!first) out.push(',');
    writeString(out, key);
    out.push(':');
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
  const out = new JsonText(null, Infinity);
  writeValue(out, value, resolve, null);
  return out.parts.join('');
}

/**
 * Writes a Cypher result as canonical JSON while RETURN produces it. Each row is charged to the
 * statement's budget (TOOLGRAPH_QUERY_MAX_RESULT_BYTES) piece by piece before the piece is made, so an
 * oversized result is refused before it is built.
 */
export class ResultJson implements RowSink {
  readonly #resolve: Resolve;
  readonly #budget: QueryBudget;
  readonly #rows: string[] = [];
  readonly #nodes: NodeTexts = new Map();

  constructor(resolve: Resolve, budget: QueryBudget) {
    this.#resolve = resolve;
    this.#budget = budget;
  }

  push(values: readonly Value[]): void {
    const budget = this.#budget;
    // UTF-16 length is at most the UTF-8 length: a cheap lower bound while rows arrive.
    const out = new JsonText(budget, budget.limits.maxResultBytes - budget.bytes);
    out.push(this.#rows.length === 0 ? '[' : ',[');
    for (let i = 0; i < values.length; i++) {
      if (i > 0) out.push(',');
      writeValue(out, values[i]!, this.#resolve, this.#nodes);
    }
    out.push(']');
    budget.chargeBytes(out.length);
    this.#rows.push(out.parts.join(''));
  }

  /**
   * Checks now that the whole result will fit, whatever its version (a write checks before it commits,
   * so `finish` cannot refuse it afterwards).
   */
  checkFinish(columns: readonly string[], stats?: WriteStats): void {
    this.finish(columns, Number.MAX_SAFE_INTEGER, stats);
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
