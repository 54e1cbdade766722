/**
 * MERGE: the clause's whole pattern is matched against the graph as the statement has changed it so
 * far (stored nodes and edges, minus what it deleted, plus what it created or changed), and created
 * whole when nothing matches. Each matched path gives a row (ON MATCH SET runs on it); a created one
 * gives one row (ON CREATE SET runs on it). Rows of one statement see each other's merges, so
 * `UNWIND [1, 1] AS x MERGE (:N {id: x})` creates one node; writers queue per graph in the engine, so
 * two statements merging the same key create one node between them.
 */
import type { EdgeRecord, NodeRecord } from '../../engine/index.ts';
import type { MergeClause, NodePattern } from '../language/ast.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { equals, evaluate } from './evaluate.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { chargePath } from './match-named-path.ts';
import { EdgeRef, NodeRef, PathRef, isMap, storedProperty, typeName, type Value, type ValueMap } from './values.ts';

/** What MERGE reads from the statement's pending writes. */
export interface MergeSource {
  /** The node as the statement sees it: undefined when it does not exist (or was deleted). */
  nodeById(id: string): NodeRecord | undefined;
  /** Nodes of a label as the statement sees them whose properties equal `scalars` (ascending id for stored ones). */
  nodesOf(label: string, scalars: Readonly<Record<string, string | number | boolean>>, ctx: RunContext): NodeRecord[];
  /** The edges at a node as the statement sees them, over `type`, in `direction`, with the node at the other end. */
  edgesAt(id: string, type: string, direction: 'out' | 'in' | 'both', ctx: RunContext): { edge: EdgeRecord; other: NodeRecord }[];
}

interface Wanted {
  readonly slot: number;
  /** The node the row already binds, when it does. */
  readonly bound: NodeRecord | null;
  readonly label: string | null;
  readonly props: ValueMap | null;
}

function wanted(node: NodePattern, row: Row, source: MergeSource, ctx: RunContext): Wanted {
  const slot = node.variable === null ? -1 : slotOf(ctx, node.variable);
  const value = slot >= 0 ? row[slot] : undefined;
  if (value !== undefined) {
    if (value === null) throw runtimeError(`MERGE: variable \`${node.variable}\` is null, so the pattern cannot be matched or created.`);
    if (!(value instanceof NodeRef)) throw runtimeError(`MERGE: variable \`${node.variable}\` must be a node, got ${typeName(value)}.`);
    const record = source.nodeById(value.id);
    if (record === undefined) throw runtimeError(`MERGE: node ${JSON.stringify(value.id)} was deleted by this statement.`);
    return { slot, bound: record, label: null, props: null };
  }
  let props: ValueMap | null = null;
  if (node.properties !== null) {
    const map = evaluate(node.properties, row, ctx);
    if (!isMap(map)) throw runtimeError(`MERGE: the property map must be a map, got ${typeName(map)}.`);
    for (const key of Object.keys(map)) {
      if (map[key] === null) throw runtimeError(`MERGE: cannot merge a node on a null property value (${key}); a stored node never holds null.`, { property: key });
    }
    props = map;
  }
  return { slot, bound: null, label: node.label, props };
}

function fits(record: NodeRecord, want: Wanted): boolean {
  if (want.bound !== null) return record.id === want.bound.id;
  if (want.label !== null && record.label !== want.label) return false;
  if (want.props === null) return true;
  for (const key of Object.keys(want.props)) {
    const expected = want.props[key]!;
    const actual: Value = key === 'id' ? record.id : storedProperty(record.props, key);
    if (equals(actual, expected) !== true) return false;
  }
  return true;
}

function candidates(want: Wanted, source: MergeSource, ctx: RunContext): NodeRecord[] {
  if (want.bound !== null) return [want.bound];
  const id = want.props?.id;
  if (id !== undefined) {
    if (typeof id !== 'string') return [];
    const record = source.nodeById(id);
    return record !== undefined && fits(record, want) ? [record] : [];
  }
  if (want.label === null) throw runtimeError('MERGE needs a label for each new node, like (n:Person).');
  const scalars: Record<string, string | number | boolean> = Object.create(null) as Record<string, string | number | boolean>;
  for (const [key, value] of Object.entries(want.props ?? {})) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') scalars[key] = value;
  }
  return source.nodesOf(want.label, scalars, ctx).filter((record) => fits(record, want));
}

/** The rows of every path matching the clause's pattern from `row`; empty when none does. */
export function matchMerge(clause: MergeClause, row: Row, source: MergeSource, ctx: RunContext): Row[] {
  const pattern = clause.pattern;
  const nodes = [pattern.start, ...pattern.steps.map((s) => s.node)];
  const wants = nodes.map((node) => wanted(node, row, source, ctx));
  const out: Row[] = [];
  const pathNodes: NodeRecord[] = [];
  const pathEdges: EdgeRecord[] = [];
  const extend = (depth: number): void => {
    if (depth === pattern.steps.length) {
      ctx.budget.addRows(1);
      const result = row.slice();
      pathNodes.forEach((record, i) => {
        const slot = wants[i]!.slot;
        if (slot >= 0) result[slot] = new NodeRef(record);
      });
      pattern.steps.forEach((step, i) => {
        if (step.rel.variable !== null) result[slotOf(ctx, step.rel.variable)] = new EdgeRef(pathEdges[i]!);
      });
      if (pattern.path !== undefined) {
        chargePath(ctx.budget, pathEdges.length);
        result[slotOf(ctx, pattern.path)] = new PathRef(pathNodes.map((record) => new NodeRef(record)), pathEdges.map((edge) => new EdgeRef(edge)));
      }
      out.push(result);
      return;
    }
    const step = pattern.steps[depth]!;
    const from = pathNodes[depth]!;
    const want = wants[depth + 1]!;
    for (const { edge, other } of source.edgesAt(from.id, step.rel.types[0]!, step.rel.direction, ctx)) {
      ctx.budget.tick();
      // Relationship uniqueness within the path.
      if (pathEdges.some((e) => e.src === edge.src && e.tgt === edge.tgt && e.type === edge.type)) continue;
      if (!fits(other, want)) continue;
      pathNodes.push(other);
      pathEdges.push(edge);
      extend(depth + 1);
      pathNodes.pop();
      pathEdges.pop();
    }
  };
  for (const start of candidates(wants[0]!, source, ctx)) {
    ctx.budget.tick();
    pathNodes.push(start);
    extend(0);
    pathNodes.pop();
  }
  return out;
}
