// Compares the TCK's expected values with toolgraph's answers. The answer is the JSON `/dispatch`
// sends (a node is its properties plus `id`, a relationship `{src, tgt, type}`), read back with the
// graph as it stands after the statement: an object is a node when its `id` names a node of the graph
// and its other keys are exactly that node's properties (the node's label comes from the graph, since
// the JSON has none), and a relationship when it is `{src, tgt, type}` naming an edge of the graph.
// Numbers: toolgraph has one number type (64-bit floats, docs/graph-model.md), so `1` and `1.0` are
// the same answer and numbers compare by value; the TCK's integer/float distinction is not checked.
import type { GraphView } from '../../src/graph/engine/index.ts';
import { showTck, type TckValue } from './values.ts';

export type Actual =
  | null | boolean | number | string
  | { readonly kind: 'node'; readonly id: string; readonly label: string; readonly props: Readonly<Record<string, unknown>> }
  | { readonly kind: 'relationship'; readonly type: string; readonly src: string; readonly tgt: string }
  | { readonly kind: 'list'; readonly items: readonly Actual[] }
  | { readonly kind: 'map'; readonly entries: Readonly<Record<string, Actual>> };

/** The graph as a statement left it: enough to recognise nodes and relationships in JSON, and to diff. */
export interface GraphState {
  readonly nodes: ReadonlyMap<string, { readonly label: string; readonly props: Readonly<Record<string, unknown>> }>;
  /** `src\u0000type\u0000tgt` of every edge. */
  readonly edges: ReadonlySet<string>;
}

export function graphState(view: GraphView): GraphState {
  const nodes = new Map<string, { label: string; props: Readonly<Record<string, unknown>> }>();
  for (const n of view.allNodes()) nodes.set(n.id, { label: n.label, props: n.props });
  const edges = new Set<string>();
  for (const e of view.allEdges()) edges.add(`${e.src}\u0000${e.type}\u0000${e.tgt}`);
  return { nodes, edges };
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(b);
  return a.every((k) => set.has(k));
}

/** Reads one JSON answer value with the graph it came from. */
export function readActual(json: unknown, graph: GraphState): Actual {
  if (json === null || typeof json === 'boolean' || typeof json === 'number' || typeof json === 'string') return json;
  if (Array.isArray(json)) return { kind: 'list', items: json.map((item) => readActual(item, graph)) };
  const object = json as Record<string, unknown>;
  const keys = Object.keys(object);
  const { src, tgt, type, id } = object;
  if (keys.length === 3 && typeof src === 'string' && typeof tgt === 'string' && typeof type === 'string' && graph.edges.has(`${src}\u0000${type}\u0000${tgt}`)) {
    return { kind: 'relationship', type, src, tgt };
  }
  if (typeof id === 'string') {
    const node = graph.nodes.get(id);
    if (node !== undefined && sameKeys(keys.filter((k) => k !== 'id'), Object.keys(node.props))) {
      const props = { ...object };
      delete props['id'];
      return { kind: 'node', id, label: node.label, props };
    }
  }
  const entries: Record<string, Actual> = {};
  for (const k of keys) entries[k] = readActual(object[k], graph);
  return { kind: 'map', entries };
}

export function showActual(a: Actual): string {
  if (a === null) return 'null';
  if (typeof a === 'string') return `'${a}'`;
  if (typeof a !== 'object') return String(a);
  switch (a.kind) {
    case 'node': {
      const props = Object.entries(a.props).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ');
      return `(:${a.label}${props === '' ? '' : ` {${props}}`})`;
    }
    case 'relationship': return `[:${a.type}]`;
    case 'list': return `[${a.items.map(showActual).join(', ')}]`;
    case 'map': return `{${Object.entries(a.entries).map(([k, v]) => `${k}: ${showActual(v)}`).join(', ')}}`;
  }
}

function propsMatch(expected: ReadonlyMap<string, TckValue>, actual: Readonly<Record<string, unknown>>, graph: GraphState, unordered: boolean): boolean {
  if (!sameKeys([...expected.keys()], Object.keys(actual))) return false;
  for (const [k, v] of expected) if (!matches(v, readActual(actual[k], graph), graph, unordered)) return false;
  return true;
}

/** Equal items as multisets (a greedy pairing: `matches` is an equivalence, so greedy is exact). */
function sameMultiset<E, A>(expected: readonly E[], actual: readonly A[], eq: (e: E, a: A) => boolean): boolean {
  if (expected.length !== actual.length) return false;
  const used = new Array<boolean>(actual.length).fill(false);
  for (const e of expected) {
    const at = actual.findIndex((a, i) => !used[i] && eq(e, a));
    if (at < 0) return false;
    used[at] = true;
  }
  return true;
}

/** Whether an answer value is the expected one; `unordered`: lists compare as multisets. */
export function matches(expected: TckValue, actual: Actual, graph: GraphState, unordered: boolean): boolean {
  switch (expected.kind) {
    case 'null': return actual === null;
    case 'boolean': case 'string': return actual === expected.value;
    case 'integer': case 'float':
      return typeof actual === 'number' && (actual === expected.value || (Number.isNaN(actual) && Number.isNaN(expected.value)));
    case 'list': {
      if (actual === null || typeof actual !== 'object' || actual.kind !== 'list') return false;
      const eq = (e: TckValue, a: Actual) => matches(e, a, graph, unordered);
      if (unordered) return sameMultiset(expected.items, actual.items, eq);
      return expected.items.length === actual.items.length && expected.items.every((e, i) => eq(e, actual.items[i]!));
    }
    case 'map': {
      if (actual === null || typeof actual !== 'object' || actual.kind !== 'map') return false;
      if (!sameKeys([...expected.entries.keys()], Object.keys(actual.entries))) return false;
      for (const [k, v] of expected.entries) if (!matches(v, actual.entries[k]!, graph, unordered)) return false;
      return true;
    }
    case 'node': {
      if (actual === null || typeof actual !== 'object' || actual.kind !== 'node') return false;
      if (expected.labels.length !== 1 || expected.labels[0] !== actual.label) return false;
      // `id` is the node id in toolgraph, never a property: an expected `id` property is compared with it.
      const props = new Map(expected.props);
      const id = props.get('id');
      if (id !== undefined) {
        if (!matches(id, actual.id, graph, unordered)) return false;
        props.delete('id');
      }
      return propsMatch(props, actual.props, graph, unordered);
    }
    case 'relationship':
      return actual !== null && typeof actual === 'object' && actual.kind === 'relationship' && actual.type === expected.type && expected.props.size === 0;
    case 'path': {
      // A path answer as an alternating list: node, relationship, node, ...
      if (actual === null || typeof actual !== 'object' || actual.kind !== 'list') return false;
      const items = actual.items;
      if (items.length !== 1 + 2 * expected.steps.length || !matches(expected.start, items[0]!, graph, unordered)) return false;
      return expected.steps.every((s, i) => matches(s.rel, items[1 + 2 * i]!, graph, unordered) && matches(s.node, items[2 + 2 * i]!, graph, unordered)
        && pointsAlong(items[2 * i]!, items[1 + 2 * i]!, items[2 + 2 * i]!, s.forward));
    }
  }
}

/** Whether a path's relationship joins the nodes either side of it, pointing the way the expected path says. */
function pointsAlong(from: Actual, rel: Actual, to: Actual, forward: boolean): boolean {
  if (from === null || rel === null || to === null || typeof from !== 'object' || typeof rel !== 'object' || typeof to !== 'object') return false;
  if (from.kind !== 'node' || rel.kind !== 'relationship' || to.kind !== 'node') return false;
  return forward ? rel.src === from.id && rel.tgt === to.id : rel.src === to.id && rel.tgt === from.id;
}

export interface RowsExpectation {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly TckValue[])[];
  readonly ordered: boolean;
  readonly unorderedLists: boolean;
}

/** Null when the answer is the expected one, else why not. */
export function compareRows(expected: RowsExpectation, columns: readonly string[], rows: readonly (readonly unknown[])[], graph: GraphState): string | null {
  if (expected.columns.length > 0 && (columns.length !== expected.columns.length || columns.some((c, i) => c !== expected.columns[i]))) {
    return `columns ${JSON.stringify(columns)}, expected ${JSON.stringify(expected.columns)}`;
  }
  const actual = rows.map((r) => r.map((v) => readActual(v, graph)));
  const rowMatches = (e: readonly TckValue[], a: readonly Actual[]) => e.length === a.length && e.every((v, i) => matches(v, a[i]!, graph, expected.unorderedLists));
  const ok = expected.ordered
    ? expected.rows.length === actual.length && expected.rows.every((e, i) => rowMatches(e, actual[i]!))
    : sameMultiset(expected.rows, actual, rowMatches);
  if (ok) return null;
  const show = (r: readonly string[]) => `| ${r.join(' | ')} |`;
  const got = actual.slice(0, 10).map((r) => show(r.map(showActual)));
  const want = expected.rows.slice(0, 10).map((r) => show(r.map(showTck)));
  return `rows differ${expected.ordered ? ' (in order)' : ''}: got ${actual.length} [${got.join(' ')}], expected ${expected.rows.length} [${want.join(' ')}]`;
}

export type SideEffects = Record<'+nodes' | '-nodes' | '+relationships' | '-relationships' | '+labels' | '-labels' | '+properties' | '-properties', number>;

/**
 * The TCK's side effects, as its own harness counts them: the difference between the graph before
 * and after the statement. Labels count as the set of label names in use; properties as
 * (node, key, value) triples, so overwriting a value is +1 and -1.
 */
export function sideEffects(before: GraphState, after: GraphState): SideEffects {
  const diff = <T>(a: Iterable<T>, b: ReadonlySet<T>) => {
    let n = 0;
    for (const x of a) if (!b.has(x)) n++;
    return n;
  };
  const labels = (g: GraphState) => new Set([...g.nodes.values()].map((n) => n.label));
  const props = (g: GraphState) => {
    const out = new Set<string>();
    for (const [id, n] of g.nodes) for (const [k, v] of Object.entries(n.props)) out.add(JSON.stringify([id, k, v]));
    return out;
  };
  const [lb, la, pb, pa] = [labels(before), labels(after), props(before), props(after)];
  const nb = new Set(before.nodes.keys());
  const na = new Set(after.nodes.keys());
  return {
    '+nodes': diff(na, nb), '-nodes': diff(nb, na),
    '+relationships': diff(after.edges, before.edges), '-relationships': diff(before.edges, after.edges),
    '+labels': diff(la, lb), '-labels': diff(lb, la),
    '+properties': diff(pa, pb), '-properties': diff(pb, pa),
  };
}
