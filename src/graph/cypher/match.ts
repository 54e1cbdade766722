import type { EdgeHit, NodeRecord, Scalar } from '../engine/index.ts';
import type { Direction, Expr, MatchClause, NodePattern, Pattern, RelPattern } from './ast.ts';
import { runtimeError } from './cypher-error.ts';
import { asBoolean, equals, evaluate } from './evaluate.ts';
import type { Row, RunContext, SubqueryExpr } from './run-context.ts';
import { EdgeRef, NodeRef, compareCodePoints, isMap, type Value } from './values.ts';
import { forEachOperand } from './expr-operands.ts';

/**
 * A row being matched: its bindings, the edges it already used in this MATCH (Cypher never binds
 * one relationship twice in a clause) and the input row it grew from.
 */
export interface MatchState {
  readonly row: Row;
  readonly used: ReadonlySet<string>;
  readonly origin: number;
}

/** Equalities `v.key = constant` from the WHERE clause, usable as scan filters for v. */
export type Pushdown = ReadonlyMap<string, ReadonlyMap<string, Expr>>;

const EMPTY_PUSHDOWN: Pushdown = new Map();

/** Runs a MATCH or OPTIONAL MATCH clause over the incoming rows. */
export function runMatch(clause: MatchClause, rows: readonly Row[], ctx: RunContext): Row[] {
  const pushdown = clause.where === null ? EMPTY_PUSHDOWN : pushdownOf(clause.where);
  let states: MatchState[] = rows.map((row, origin) => ({ row, used: new Set<string>(), origin }));
  for (const pattern of clause.patterns) states = matchPattern(pattern, states, ctx, pushdown);
  if (clause.where !== null) states = filterWhere(clause.where, states, ctx);
  if (!clause.optional) return states.map((s) => s.row);
  // OPTIONAL MATCH keeps every input row: unmatched ones get null for each new variable.
  const introduced = new Set<string>();
  for (const pattern of clause.patterns) for (const name of patternVariables(pattern)) introduced.add(name);
  const byOrigin = new Map<number, Row[]>();
  for (const s of states) {
    const list = byOrigin.get(s.origin);
    if (list) list.push(s.row);
    else byOrigin.set(s.origin, [s.row]);
  }
  const out: Row[] = [];
  rows.forEach((row, origin) => {
    const matched = byOrigin.get(origin);
    if (matched) out.push(...matched);
    else {
      const extended = new Map(row);
      for (const name of introduced) if (!extended.has(name)) extended.set(name, null);
      out.push(extended);
    }
  });
  return out;
}

function filterWhere(where: Expr, states: MatchState[], ctx: RunContext): MatchState[] {
  prepareSubqueries([where], states.map((s) => s.row), ctx);
  return states.filter((s) => asBoolean(evaluate(where, s.row, ctx), 'WHERE') === true);
}

export function patternVariables(pattern: Pattern): string[] {
  const names: string[] = [];
  if (pattern.start.variable !== null) names.push(pattern.start.variable);
  for (const step of pattern.steps) {
    if (step.rel.variable !== null) names.push(step.rel.variable);
    if (step.node.variable !== null) names.push(step.node.variable);
  }
  return names;
}

/** Top-level `v.key = constant` conjuncts of a WHERE clause (a parameter or literal on one side). */
export function pushdownOf(where: Expr): Pushdown {
  const out = new Map<string, Map<string, Expr>>();
  const conjuncts = where.kind === 'and' ? where.operands : [where];
  for (const c of conjuncts) {
    if (c.kind !== 'comparison' || c.rest.length !== 1 || c.rest[0]!.op !== '=') continue;
    const sides: [Expr, Expr][] = [[c.first, c.rest[0]!.expr], [c.rest[0]!.expr, c.first]];
    for (const [prop, constant] of sides) {
      if (prop.kind !== 'property' || prop.target.kind !== 'variable') continue;
      if (constant.kind !== 'literal' && constant.kind !== 'parameter') continue;
      const name = prop.target.name;
      let entry = out.get(name);
      if (!entry) out.set(name, (entry = new Map()));
      if (!entry.has(prop.key)) entry.set(prop.key, constant);
      break;
    }
  }
  return out;
}

function flip(direction: Direction): Direction {
  return direction === 'out' ? 'in' : direction === 'in' ? 'out' : 'both';
}

/** How cheap a node is to start from: bound beats property-filtered beats labelled beats bare. */
function startScore(node: NodePattern, bound: boolean, pushdown: Pushdown): number {
  if (bound) return 3;
  if (node.properties !== null || (node.variable !== null && pushdown.has(node.variable))) return 2;
  return node.label !== null ? 1 : 0;
}

function isBound(states: readonly MatchState[], variable: string | null): boolean {
  return variable !== null && states.length > 0 && states[0]!.row.has(variable);
}

/** Matches one path pattern for every state at once: one scan (or none), then one expand per step. */
export function matchPattern(pattern: Pattern, input: MatchState[], ctx: RunContext, pushdown: Pushdown): MatchState[] {
  if (input.length === 0) return [];
  let nodes: NodePattern[] = [pattern.start, ...pattern.steps.map((s) => s.node)];
  let rels: RelPattern[] = pattern.steps.map((s) => s.rel);
  const last = nodes[nodes.length - 1]!;
  // Start from whichever end is cheaper; reading the path backwards flips each direction.
  if (nodes.length > 1 && startScore(last, isBound(input, last.variable), pushdown) > startScore(pattern.start, isBound(input, pattern.start.variable), pushdown)) {
    nodes = nodes.reverse();
    rels = rels.reverse().map((r) => ({ ...r, direction: flip(r.direction) }));
  }
  let states = bindStart(nodes[0]!, input, ctx, pushdown);
  for (let i = 0; i < rels.length && states.length > 0; i++) states = expandStep(rels[i]!, nodes[i + 1]!, states, ctx);
  return states.map((c) => c.state);
}

interface Cursor {
  state: MatchState;
  at: NodeRecord;
}

/** A node pattern's property map, split into constants (evaluated once) and row-dependent entries. */
interface NodeConstraint {
  readonly label: string | null;
  /** Evaluated constant equalities; `impossible` when one is null (null never equals anything). */
  readonly constants: ReadonlyMap<string, Value>;
  readonly impossible: boolean;
  readonly perRow: readonly { key: string; expr: Expr }[];
}

const EMPTY_ROW: Row = new Map();

function isConstant(expr: Expr): boolean {
  switch (expr.kind) {
    case 'literal': case 'parameter': return true;
    case 'list': return expr.items.every(isConstant);
    case 'map': return expr.entries.every((e) => isConstant(e.value));
    case 'negate': return isConstant(expr.operand);
    default: return false;
  }
}

function constraintOf(node: NodePattern, ctx: RunContext, extra: ReadonlyMap<string, Expr> | undefined): NodeConstraint {
  const constants = new Map<string, Value>();
  const perRow: { key: string; expr: Expr }[] = [];
  let impossible = false;
  const props = node.properties;
  if (props !== null) {
    if (props.kind === 'map') {
      for (const entry of props.entries) {
        if (isConstant(entry.value)) constants.set(entry.key, evaluate(entry.value, EMPTY_ROW, ctx));
        else perRow.push({ key: entry.key, expr: entry.value });
      }
    } else {
      const value = evaluate(props, EMPTY_ROW, ctx);
      if (!isMap(value)) throw runtimeError(`A node pattern's property parameter must be a map, got ${value === null ? 'null' : typeof value}.`);
      for (const key of Object.keys(value)) constants.set(key, value[key]!);
    }
  }
  if (extra) {
    for (const [key, expr] of extra) {
      if (constants.has(key)) continue;
      constants.set(key, evaluate(expr, EMPTY_ROW, ctx));
    }
  }
  for (const v of constants.values()) if (v === null) impossible = true;
  return { label: node.label, constants, impossible, perRow };
}

function propertyValue(record: NodeRecord, key: string): Value {
  if (key === 'id') return record.id;
  return Object.hasOwn(record.props, key) ? (record.props[key] as Value) : null;
}

function satisfies(record: NodeRecord, c: NodeConstraint, row: Row, ctx: RunContext, checkConstants: boolean): boolean {
  if (c.label !== null && record.label !== c.label) return false;
  if (checkConstants) for (const [key, v] of c.constants) if (equals(propertyValue(record, key), v) !== true) return false;
  for (const { key, expr } of c.perRow) if (equals(propertyValue(record, key), evaluate(expr, row, ctx)) !== true) return false;
  return true;
}

function candidates(c: NodeConstraint, ctx: RunContext): NodeRecord[] {
  const filter: Record<string, Scalar> = {};
  let pushed = 0;
  for (const [key, v] of c.constants) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      filter[key] = v;
      pushed++;
    }
  }
  let found: NodeRecord[];
  if (c.label !== null) found = ctx.view.scan(c.label, pushed > 0 ? { filter } : {});
  else if (typeof filter['id'] === 'string') {
    const node = ctx.view.node(filter['id']);
    found = node ? [node] : [];
  } else found = [...ctx.view.allNodes()];
  // Constants the scan could not take (lists, non-id filters without a label) are checked here.
  return found.filter((record) => {
    for (const [key, v] of c.constants) if (equals(propertyValue(record, key), v) !== true) return false;
    return true;
  });
}

function bindStart(node: NodePattern, input: MatchState[], ctx: RunContext, pushdown: Pushdown): Cursor[] {
  const bound = isBound(input, node.variable);
  const c = constraintOf(node, ctx, bound || node.variable === null ? undefined : pushdown.get(node.variable));
  if (c.impossible) return [];
  const out: Cursor[] = [];
  if (bound) {
    for (const state of input) {
      const value = state.row.get(node.variable!)!;
      if (value === null) continue;
      if (!(value instanceof NodeRef)) throw runtimeError(`Variable \`${node.variable}\` is used as a node but holds a ${value instanceof EdgeRef ? 'relationship' : 'value'}.`);
      const record = ctx.resolve(value);
      if (record !== null && satisfies(record, c, state.row, ctx, true)) out.push({ state, at: record });
    }
    return out;
  }
  const found = candidates(c, ctx);
  for (const state of input) {
    for (const record of found) {
      if (c.perRow.length > 0 && !satisfies(record, c, state.row, ctx, false)) continue;
      const row = node.variable === null ? state.row : new Map(state.row).set(node.variable, new NodeRef(record));
      out.push({ state: { row, used: state.used, origin: state.origin }, at: record });
    }
  }
  return out;
}

function edgeKey(hit: EdgeHit): string {
  return `${hit.edge.src}\u0000${hit.edge.type}\u0000${hit.edge.tgt}`;
}

/** One whole-frontier expand per relationship type; several types are merged in (neighbour id, type) order. */
function expandFrontier(frontier: string[], rel: RelPattern, ctx: RunContext): Map<string, readonly EdgeHit[]> {
  if (rel.types.length <= 1) return ctx.view.edges(frontier, rel.types[0] ?? null, rel.direction);
  const merged = new Map<string, EdgeHit[]>();
  for (const type of new Set(rel.types)) {
    for (const [id, hits] of ctx.view.edges(frontier, type, rel.direction)) {
      const list = merged.get(id);
      if (list) list.push(...hits);
      else merged.set(id, [...hits]);
    }
  }
  for (const list of merged.values()) {
    list.sort((a, b) => compareCodePoints(a.node.id, b.node.id) || compareCodePoints(a.edge.type, b.edge.type));
  }
  return merged;
}

function expandStep(rel: RelPattern, node: NodePattern, cursors: Cursor[], ctx: RunContext): Cursor[] {
  const frontier = [...new Set(cursors.map((c) => c.at.id))];
  const hitsById = expandFrontier(frontier, rel, ctx);
  const c = constraintOf(node, ctx, undefined);
  if (c.impossible) return [];
  const nodeBound = cursors.length > 0 && node.variable !== null && cursors[0]!.state.row.has(node.variable);
  const relBound = cursors.length > 0 && rel.variable !== null && cursors[0]!.state.row.has(rel.variable);
  const out: Cursor[] = [];
  for (const cursor of cursors) {
    const hits = hitsById.get(cursor.at.id);
    if (!hits) continue;
    const { state } = cursor;
    for (const hit of hits) {
      const key = edgeKey(hit);
      if (state.used.has(key)) continue;
      if (relBound) {
        const r = state.row.get(rel.variable!);
        if (!(r instanceof EdgeRef) || edgeKey({ edge: r.edge, node: hit.node }) !== key) continue;
      }
      if (nodeBound) {
        const n = state.row.get(node.variable!);
        if (!(n instanceof NodeRef) || n.id !== hit.node.id) continue;
      }
      if (!satisfies(hit.node, c, state.row, ctx, true)) continue;
      let row = state.row;
      if ((rel.variable !== null && !relBound) || (node.variable !== null && !nodeBound)) {
        const next = new Map(row);
        if (rel.variable !== null && !relBound) next.set(rel.variable, new EdgeRef(hit.edge));
        if (node.variable !== null && !nodeBound) next.set(node.variable, new NodeRef(hit.node));
        row = next;
      }
      const used = new Set(state.used).add(key);
      out.push({ state: { row, used, origin: state.origin }, at: hit.node });
    }
  }
  return out;
}

/** Finds pattern comprehensions and predicates, not looking inside them (they prepare their own insides). */
export function collectSubqueries(expr: Expr, out: SubqueryExpr[]): void {
  if (expr.kind === 'patternComprehension' || expr.kind === 'patternPredicate') out.push(expr);
  else forEachOperand(expr, (operand) => collectSubqueries(operand, out));
}

/**
 * Computes every pattern comprehension and predicate in `exprs` for all `rows` together, so a
 * nested result costs one expand per pattern step for the whole row set, not one per row.
 */
export function prepareSubqueries(exprs: readonly Expr[], rows: readonly Row[], ctx: RunContext): void {
  if (rows.length === 0) return;
  const found: SubqueryExpr[] = [];
  for (const e of exprs) collectSubqueries(e, found);
  for (const sub of found) {
    const results = runSubquery(sub, rows, ctx);
    let cache = ctx.prepared.get(sub);
    if (!cache) ctx.prepared.set(sub, (cache = new WeakMap()));
    rows.forEach((row, i) => cache.set(row, results[i]!));
  }
}

/** The value of a pattern comprehension (a list) or predicate (a boolean) for each row. */
export function runSubquery(sub: SubqueryExpr, rows: readonly Row[], ctx: RunContext): Value[] {
  const where = sub.kind === 'patternComprehension' ? sub.where : null;
  let states: MatchState[] = rows.map((row, origin) => ({ row, used: new Set<string>(), origin }));
  states = matchPattern(sub.pattern, states, ctx, where === null ? EMPTY_PUSHDOWN : pushdownOf(where));
  if (where !== null) states = filterWhere(where, states, ctx);
  if (sub.kind === 'patternPredicate') {
    const hit = new Set(states.map((s) => s.origin));
    return rows.map((_, i) => hit.has(i));
  }
  prepareSubqueries([sub.projection], states.map((s) => s.row), ctx);
  const lists: Value[][] = rows.map(() => []);
  for (const s of states) lists[s.origin]!.push(evaluate(sub.projection, s.row, ctx));
  return lists;
}
