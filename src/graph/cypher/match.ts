import type { EdgeHit, EdgeRecord, NodeRecord, Scalar } from '../engine/index.ts';
import type { Direction, Expr, MatchClause, NodePattern, Pattern, Query, RelPattern } from './ast.ts';
import { runtimeError } from './cypher-error.ts';
import { asBoolean, equals, evaluate } from './evaluate.ts';
import { forEachOperand } from './expr-operands.ts';
import { CHUNK_ROWS, chunksOf, collectSync, type Chunk, type ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext, type SubqueryExpr } from './run-context.ts';
import type { SlotLayout } from './slots.ts';
import { chargeValue } from './value-size.ts';
import { EdgeRef, NodeRef, compareCodePoints, isMap, storedProperty, type Value } from './values.ts';

/** Equalities `v.key = constant` from the WHERE clause, usable as scan filters for v. */
type Pushdown = ReadonlyMap<string, ReadonlyMap<string, Expr>>;

const EMPTY_PUSHDOWN: Pushdown = new Map();

/** A row with every slot unbound: the input of a statement's first clause. */
export function emptyRow(ctx: RunContext): Row {
  return new Array<Value | undefined>(ctx.layout.width).fill(undefined);
}

/** The reading part of a statement: its MATCH and OPTIONAL MATCH clauses over one empty row. */
export function matchAll(query: Query, ctx: RunContext): ChunkStream {
  let stream = chunksOf([emptyRow(ctx)]);
  for (const clause of query.reading) stream = matchClause(clause, stream, ctx);
  return stream;
}

function matchClause(clause: MatchClause, input: ChunkStream, ctx: RunContext): ChunkStream {
  const pushdown = clause.where === null ? EMPTY_PUSHDOWN : pushdownOf(clause.where);
  return clause.optional ? optionalMatch(clause, input, ctx, pushdown) : clauseBody(clause, input, ctx, pushdown);
}

function clauseBody(clause: MatchClause, input: ChunkStream, ctx: RunContext, pushdown: Pushdown): ChunkStream {
  let stream = input;
  for (const pattern of clause.patterns) stream = matchPattern(pattern, stream, ctx, pushdown);
  if (clause.where !== null) stream = filterWhere(clause.where, stream, ctx);
  return stream;
}

function* once(chunk: Chunk): ChunkStream {
  yield chunk;
}

/** OPTIONAL MATCH keeps every input row: unmatched ones get null for each new variable. */
function* optionalMatch(clause: MatchClause, input: ChunkStream, ctx: RunContext, pushdown: Pushdown): ChunkStream {
  const introduced = new Set<number>();
  for (const pattern of clause.patterns) for (const name of patternVariables(pattern)) introduced.add(slotOf(ctx, name));
  for (const chunk of input) {
    const n = chunk.rows.length;
    if (n === 0) {
      yield chunk;
      continue;
    }
    const local: Chunk = { rows: chunk.rows, origins: Array.from({ length: n }, (_, i) => i) };
    const matched = collectSync(clauseBody(clause, once(local), ctx, pushdown), ctx.budget);
    const rows: Row[] = [];
    const origins: number[] = [];
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (k < matched.rows.length && matched.origins[k] === i) {
        for (; k < matched.rows.length && matched.origins[k] === i; k++) {
          rows.push(matched.rows[k]!);
          origins.push(chunk.origins[i]!);
        }
      } else {
        const extended = chunk.rows[i]!.slice();
        for (const slot of introduced) if (extended[slot] === undefined) extended[slot] = null;
        ctx.budget.addRows(1);
        rows.push(extended);
        origins.push(chunk.origins[i]!);
      }
    }
    yield { rows, origins };
  }
}

function* filterWhere(where: Expr, input: ChunkStream, ctx: RunContext): ChunkStream {
  for (const chunk of input) {
    if (chunk.rows.length === 0) {
      yield chunk;
      continue;
    }
    // The WHERE's subqueries for the chunk; an empty chunk down the stream lets the driver pause.
    const steps = prepareSteps([where], chunk.rows, ctx);
    while (steps.next().done !== true) yield NOTHING_YET;
    const rows: Row[] = [];
    const origins: number[] = [];
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      ctx.budget.tick();
      if (asBoolean(evaluate(where, row, ctx), 'WHERE') === true) {
        rows.push(row);
        origins.push(chunk.origins[i]!);
      }
    }
    yield { rows, origins };
  }
}

function patternVariables(pattern: Pattern): string[] {
  const names: string[] = [];
  if (pattern.start.variable !== null) names.push(pattern.start.variable);
  for (const step of pattern.steps) {
    if (step.rel.variable !== null) names.push(step.rel.variable);
    if (step.node.variable !== null) names.push(step.node.variable);
  }
  return names;
}

/** Top-level `v.key = constant` conjuncts of a WHERE clause (a parameter or literal on one side). */
function pushdownOf(where: Expr): Pushdown {
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

/**
 * The paths a pattern is growing for one chunk of its input rows, as columns: per path, the input
 * row it grew from, the node it has reached, and the values of the live slots the pattern binds
 * (`PatternPlan.tracked`). Rows are built once, when the pattern is complete: a step copies no rows,
 * and a path whose pattern binds nothing live is its input row itself.
 */
interface Paths {
  readonly input: Chunk;
  readonly parent: number[];
  readonly at: NodeRecord[];
  /** One column per tracked slot, one entry per path (undefined until the step that binds it). */
  readonly cols: (Value | undefined)[][];
}

const NO_COLUMNS: (Value | undefined)[][] = [];

function emptyPaths(input: Chunk, columns: number): Paths {
  let cols = NO_COLUMNS;
  if (columns > 0) {
    cols = [];
    for (let c = 0; c < columns; c++) cols.push([]);
  }
  return { input, parent: [], at: [], cols };
}

interface PatternPlan {
  /** Live slots this pattern binds, in column order. */
  readonly tracked: readonly number[];
  /** Slot → column, or -1 for slots read from the input row. */
  readonly column: Int32Array;
  readonly start: BoundStart | ScanStart;
  readonly steps: readonly Expand[];
}

/** A slot's value on path p: from the path's columns, or from the row it grew from. */
function valueAt(plan: PatternPlan, paths: Paths, p: number, slot: number): Value | undefined {
  const c = plan.column[slot]!;
  return c >= 0 ? paths.cols[c]![p] : paths.input.rows[paths.parent[p]!]![slot];
}

/**
 * Matches one path pattern over a stream of rows: a scan (or a check of the bound start), then one
 * whole-chunk expansion per step. The plan (which end to start from, which variables are already
 * bound) is made once, from the first row: every row of a stream binds the same variables.
 */
function* matchPattern(pattern: Pattern, input: ChunkStream, ctx: RunContext, pushdown: Pushdown): ChunkStream {
  let plan: PatternPlan | null = null;
  for (const chunk of input) {
    if (chunk.rows.length === 0) {
      yield chunk;
      continue;
    }
    plan ??= planPattern(pattern, chunk.rows[0]!, ctx, pushdown);
    for (const paths of plan.start.run(chunk)) yield* grow(plan, 0, paths, ctx);
  }
}

/** An empty chunk: passed down the stream so the driver can pause when a stage finds nothing for long. */
const NOTHING_YET: Chunk = Object.freeze({ rows: [], origins: [] }) as Chunk;

function* grow(plan: PatternPlan, k: number, paths: Paths, ctx: RunContext): ChunkStream {
  if (paths.parent.length === 0) {
    if (ctx.budget.yieldDue) yield NOTHING_YET;
    return;
  }
  if (k === plan.steps.length) {
    yield complete(plan, paths);
    return;
  }
  for (const next of plan.steps[k]!.run(paths)) yield* grow(plan, k + 1, next, ctx);
}

/** The rows of complete paths: the input row plus the pattern's live bindings. */
function complete(plan: PatternPlan, paths: Paths): Chunk {
  const { input, parent, cols } = paths;
  const tracked = plan.tracked;
  const n = parent.length;
  const rows = new Array<Row>(n);
  const origins = new Array<number>(n);
  for (let p = 0; p < n; p++) {
    const base = input.rows[parent[p]!]!;
    if (tracked.length === 0) rows[p] = base;
    else {
      const row = base.slice();
      for (let c = 0; c < tracked.length; c++) row[tracked[c]!] = cols[c]![p];
      rows[p] = row;
    }
    origins[p] = input.origins[parent[p]!]!;
  }
  return { rows, origins };
}

/** The part of a pattern's plan that depends only on the statement: order, slots, columns. */
interface PatternShape {
  readonly start: NodePattern;
  readonly startSlot: number;
  readonly startBound: boolean;
  readonly startColumn: number;
  readonly tracked: readonly number[];
  readonly column: Int32Array;
  readonly steps: readonly (Omit<ExpandPlan, 'constraint'> & { readonly node: NodePattern })[];
}

/**
 * Shapes by pattern and by which of its slots arrive bound (always the same for one pattern of one
 * statement, so one entry each): a statement served from the statement cache plans no pattern again.
 */
const shapes = new WeakMap<Pattern, Map<string, PatternShape>>();

function shapeOf(pattern: Pattern, first: Row, layout: SlotLayout, pushdown: Pushdown): PatternShape {
  const own: number[] = [layout.nodeSlot(pattern.start)];
  for (const step of pattern.steps) own.push(layout.relSlot(step.rel), layout.nodeSlot(step.node));
  let key = '';
  for (const slot of own) key += slot >= 0 && first[slot] !== undefined ? '1' : '0';
  let byKey = shapes.get(pattern);
  if (byKey === undefined) shapes.set(pattern, (byKey = new Map()));
  let shape = byKey.get(key);
  if (shape === undefined) byKey.set(key, (shape = buildShape(pattern, first, layout, pushdown)));
  return shape;
}

function buildShape(pattern: Pattern, first: Row, layout: SlotLayout, pushdown: Pushdown): PatternShape {
  const isBound = (slot: number): boolean => first[slot] !== undefined;
  let nodes: NodePattern[] = [pattern.start, ...pattern.steps.map((s) => s.node)];
  let rels: RelPattern[] = pattern.steps.map((s) => s.rel);
  let directions: Direction[] = rels.map((r) => r.direction);
  const last = nodes[nodes.length - 1]!;
  // Start from whichever end is cheaper; reading the path backwards flips each direction.
  if (nodes.length > 1 && startScore(last, isBound(layout.nodeSlot(last)), pushdown) > startScore(pattern.start, isBound(layout.nodeSlot(pattern.start)), pushdown)) {
    nodes = nodes.reverse();
    rels = rels.reverse();
    directions = directions.reverse().map(flip);
  }
  const bound = new Set<number>();
  for (let i = 0; i < first.length; i++) if (first[i] !== undefined) bound.add(i);
  // Columns for the live slots this pattern binds; everything else is read from the input row.
  const tracked: number[] = [];
  const column = new Int32Array(layout.width).fill(-1);
  const track = (slot: number): number => {
    if (slot < 0 || bound.has(slot) || !layout.isLive(slot)) return -1;
    if (column[slot] === -1) {
      column[slot] = tracked.length;
      tracked.push(slot);
    }
    return column[slot]!;
  };
  const start = nodes[0]!;
  const startSlot = layout.nodeSlot(start);
  const startBound = bound.has(startSlot);
  const startColumn = track(startSlot);
  bound.add(startSlot);
  const steps: PatternShape['steps'][number][] = [];
  for (let i = 0; i < rels.length; i++) {
    const rel = rels[i]!;
    const node = nodes[i + 1]!;
    const relSlot = layout.relSlot(rel);
    const nodeSlot = layout.nodeSlot(node);
    const relBound = relSlot >= 0 && bound.has(relSlot);
    const nodeBound = bound.has(nodeSlot);
    steps.push({
      rel, direction: directions[i]!, relSlot, relBound, relColumn: track(relSlot), partners: layout.partners(rel),
      node, nodeSlot, nodeBound, nodeColumn: track(nodeSlot),
    });
    if (relSlot >= 0) bound.add(relSlot);
    bound.add(nodeSlot);
  }
  return { start, startSlot, startBound, startColumn, tracked, column, steps };
}

/** A pattern's plan for one run: its shape, with the property constraints evaluated (parameters differ per run). */
function planPattern(pattern: Pattern, first: Row, ctx: RunContext, pushdown: Pushdown): PatternPlan {
  const shape = shapeOf(pattern, first, ctx.layout, pushdown);
  const { start, startBound, tracked } = shape;
  const c = constraintOf(start, ctx, startBound || start.variable === null ? undefined : pushdown.get(start.variable));
  const steps = shape.steps.map((step) => new Expand({ ...step, constraint: constraintOf(step.node, ctx, undefined) }, ctx));
  const plan: PatternPlan = {
    tracked, column: shape.column,
    start: startBound ? new BoundStart(start, shape.startSlot, c, tracked.length, ctx) : new ScanStart(shape.startColumn, c, tracked.length, ctx),
    steps,
  };
  for (const step of steps) step.plan = plan;
  return plan;
}

/** A node pattern's property map, split into constants (evaluated once) and row-dependent entries. */
interface NodeConstraint {
  readonly label: string | null;
  /** Evaluated constant equalities; `impossible` when one is null (null never equals anything). */
  readonly constants: readonly (readonly [string, Value])[];
  readonly impossible: boolean;
  readonly perRow: readonly { key: string; expr: Expr }[];
}

function isConstant(expr: Expr): boolean {
  switch (expr.kind) {
    case 'literal': case 'parameter': return true;
    case 'list': return expr.items.every(isConstant);
    case 'map': return expr.entries.every((e) => isConstant(e.value));
    case 'negate': return isConstant(expr.operand);
    default: return false;
  }
}

/** Constraints of node patterns without a property map: the same for every run. */
const labelOnly = new WeakMap<NodePattern, NodeConstraint>();

function constraintOf(node: NodePattern, ctx: RunContext, extra: ReadonlyMap<string, Expr> | undefined): NodeConstraint {
  if (node.properties === null && extra === undefined) {
    let c = labelOnly.get(node);
    if (c === undefined) labelOnly.set(node, (c = Object.freeze({ label: node.label, constants: [], impossible: false, perRow: [] })));
    return c;
  }
  const constants = new Map<string, Value>();
  const perRow: { key: string; expr: Expr }[] = [];
  const none: Row = [];
  const props = node.properties;
  if (props !== null) {
    if (props.kind === 'map') {
      for (const entry of props.entries) {
        if (isConstant(entry.value)) constants.set(entry.key, evaluate(entry.value, none, ctx));
        else perRow.push({ key: entry.key, expr: entry.value });
      }
    } else {
      const value = evaluate(props, none, ctx);
      if (!isMap(value)) throw runtimeError(`A node pattern's property parameter must be a map, got ${value === null ? 'null' : typeof value}.`);
      for (const key of Object.keys(value)) constants.set(key, value[key]!);
    }
  }
  if (extra) {
    for (const [key, expr] of extra) {
      if (constants.has(key)) continue;
      constants.set(key, evaluate(expr, none, ctx));
    }
  }
  let impossible = false;
  for (const v of constants.values()) if (v === null) impossible = true;
  return { label: node.label, constants: [...constants], impossible, perRow };
}

function propertyValue(record: NodeRecord, key: string): Value {
  if (key === 'id') return record.id;
  return storedProperty(record.props, key);
}

function satisfies(record: NodeRecord, c: NodeConstraint, row: Row, ctx: RunContext, checkConstants: boolean): boolean {
  if (c.label !== null && record.label !== c.label) return false;
  if (checkConstants) for (const [key, v] of c.constants) if (equals(propertyValue(record, key), v) !== true) return false;
  for (const { key, expr } of c.perRow) if (equals(propertyValue(record, key), evaluate(expr, row, ctx)) !== true) return false;
  return true;
}

function constantsHold(record: NodeRecord, c: NodeConstraint): boolean {
  for (const [key, v] of c.constants) if (equals(propertyValue(record, key), v) !== true) return false;
  return true;
}

/** A start node already bound by an earlier clause or pattern: each row is kept when its node fits. */
class BoundStart {
  readonly #node: NodePattern;
  readonly #slot: number;
  readonly #c: NodeConstraint;
  readonly #columns: number;
  readonly #ctx: RunContext;

  constructor(node: NodePattern, slot: number, c: NodeConstraint, columns: number, ctx: RunContext) {
    this.#node = node;
    this.#slot = slot;
    this.#c = c;
    this.#columns = columns;
    this.#ctx = ctx;
  }

  *run(chunk: Chunk): Generator<Paths, void, undefined> {
    if (this.#c.impossible) return;
    const ctx = this.#ctx;
    const out = emptyPaths(chunk, this.#columns);
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      const value = row[this.#slot]!;
      ctx.budget.tick();
      if (value === null) continue;
      if (!(value instanceof NodeRef)) throw runtimeError(`Variable \`${this.#node.variable}\` is used as a node but holds a ${value instanceof EdgeRef ? 'relationship' : 'value'}.`);
      const record = ctx.resolve(value);
      if (record !== null && satisfies(record, this.#c, row, ctx, true)) {
        out.parent.push(i);
        out.at.push(record);
        for (const col of out.cols) col.push(undefined);
      }
    }
    yield out;
  }
}

/** First page of a label scan; later pages grow, so a LIMIT reads little and a full scan few times. */
const FIRST_PAGE = 64;
const LAST_PAGE = 8192;

/** The candidates of an unbound start node, fetched page by page (keyset on id) as rows need them. */
class Candidates {
  readonly #list: NodeRecord[] = [];
  readonly #c: NodeConstraint;
  readonly #ctx: RunContext;
  readonly #filter: Record<string, Scalar> | undefined;
  #done = false;
  #page = FIRST_PAGE;
  #after: string | undefined;

  constructor(c: NodeConstraint, ctx: RunContext) {
    this.#c = c;
    this.#ctx = ctx;
    const filter: Record<string, Scalar> = {};
    let pushed = 0;
    for (const [key, v] of c.constants) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        filter[key] = v;
        pushed++;
      }
    }
    this.#filter = pushed > 0 ? filter : undefined;
    if (c.label === null) {
      // No label: a node by id, or every node; constants the lookup cannot take are checked here.
      const id = filter['id'];
      let found: readonly NodeRecord[];
      if (typeof id === 'string') {
        const node = ctx.view.node(id);
        found = node ? [node] : [];
      } else found = [...ctx.view.allNodes()];
      for (const record of found) if (constantsHold(record, c)) this.#list.push(record);
      this.#done = true;
    }
  }

  /** The i-th candidate, or undefined past the last. */
  at(i: number): NodeRecord | undefined {
    while (i >= this.#list.length && !this.#done) this.#fetch();
    return this.#list[i];
  }

  #fetch(): void {
    const options = { first: this.#page, ...(this.#filter ? { filter: this.#filter } : {}), ...(this.#after !== undefined ? { after: this.#after } : {}) };
    const page = this.#ctx.view.scan(this.#c.label!, options);
    for (const record of page) {
      // Constants the scan could not take (lists, say) are checked here.
      if (constantsHold(record, this.#c)) this.#list.push(record);
      else this.#ctx.budget.tick();
    }
    if (page.length < this.#page) this.#done = true;
    else this.#after = page[page.length - 1]!.id;
    this.#page = Math.min(LAST_PAGE, this.#page * 4);
  }
}

/** An unbound start node: every input row times every candidate, in id order. */
class ScanStart {
  readonly #column: number;
  readonly #c: NodeConstraint;
  readonly #columns: number;
  readonly #ctx: RunContext;
  #candidates: Candidates | null = null;

  constructor(column: number, c: NodeConstraint, columns: number, ctx: RunContext) {
    this.#column = column;
    this.#c = c;
    this.#columns = columns;
    this.#ctx = ctx;
  }

  *run(chunk: Chunk): Generator<Paths, void, undefined> {
    const c = this.#c;
    if (c.impossible) return;
    const ctx = this.#ctx;
    const budget = ctx.budget;
    const column = this.#column;
    const columns = this.#columns;
    const candidates = (this.#candidates ??= new Candidates(c, ctx));
    const perRow = c.perRow.length > 0;
    // Pieces grow (64, 256, 1024 paths): a LIMIT met early stops after a small first piece.
    let piece = FIRST_PAGE;
    let out = emptyPaths(chunk, columns);
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      for (let j = 0; ; j++) {
        const record = candidates.at(j);
        if (record === undefined) break;
        if (perRow && !satisfies(record, c, row, ctx, false)) {
          budget.tick();
          if (budget.yieldDue) {
            yield out;
            out = emptyPaths(chunk, columns);
          }
          continue;
        }
        budget.addRows(1);
        out.parent.push(i);
        out.at.push(record);
        for (let k = 0; k < columns; k++) out.cols[k]!.push(k === column ? new NodeRef(record) : undefined);
        if (out.parent.length >= piece || budget.yieldDue) {
          yield out;
          out = emptyPaths(chunk, columns);
          piece = Math.min(CHUNK_ROWS, piece * 4);
        }
      }
    }
    if (out.parent.length > 0) yield out;
  }
}

interface ExpandPlan {
  readonly node: NodePattern;
  readonly rel: RelPattern;
  readonly direction: Direction;
  readonly relSlot: number;
  readonly relBound: boolean;
  /** The relationship's column, or -1 when nothing later reads it. */
  readonly relColumn: number;
  readonly partners: readonly number[];
  readonly nodeSlot: number;
  readonly nodeBound: boolean;
  readonly nodeColumn: number;
  readonly constraint: NodeConstraint;
}

function sameEdge(a: EdgeRecord, b: EdgeRecord): boolean {
  return a.src === b.src && a.tgt === b.tgt && a.type === b.type;
}

/**
 * One relationship step for a whole chunk of paths: one engine call for the chunk's frontier, then
 * each path grows by its neighbours. A relationship nothing reads (unnamed or unused, and compared
 * with no other) takes the engine's record-in, list-out path and builds no edge objects.
 */
class Expand {
  readonly #p: ExpandPlan;
  readonly #ctx: RunContext;
  readonly #fast: boolean;
  plan!: PatternPlan;

  constructor(p: ExpandPlan, ctx: RunContext) {
    this.#p = p;
    this.#ctx = ctx;
    this.#fast = p.relColumn < 0 && !p.relBound && p.partners.length === 0 && p.rel.types.length <= 1;
  }

  run(paths: Paths): Generator<Paths, void, undefined> {
    if (this.#p.constraint.impossible) return none();
    return this.#fast ? this.#runNodes(paths) : this.#runEdges(paths);
  }

  #nodeFits(record: NodeRecord, paths: Paths, p: number): boolean {
    const e = this.#p;
    if (e.nodeBound) {
      const bound = valueAt(this.plan, paths, p, e.nodeSlot);
      if (!(bound instanceof NodeRef) || bound.id !== record.id) return false;
    }
    return satisfies(record, e.constraint, paths.input.rows[paths.parent[p]!]!, this.#ctx, true);
  }

  /** Extends path p to `record` (over `edge` when the relationship has a column). */
  #push(out: Paths, paths: Paths, p: number, record: NodeRecord, edge: EdgeRecord | null): void {
    const e = this.#p;
    out.parent.push(paths.parent[p]!);
    out.at.push(record);
    const cols = paths.cols;
    for (let k = 0; k < cols.length; k++) {
      out.cols[k]!.push(k === e.nodeColumn ? new NodeRef(record) : k === e.relColumn ? new EdgeRef(edge!) : cols[k]![p]);
    }
  }

  *#runNodes(paths: Paths): Generator<Paths, void, undefined> {
    const e = this.#p;
    const budget = this.#ctx.budget;
    const lists = this.#ctx.view.expandEach(paths.at, e.rel.types[0] ?? null, e.direction);
    const c = e.constraint;
    const simple = !e.nodeBound && c.label === null && c.constants.length === 0 && c.perRow.length === 0;
    const columns = paths.cols.length;
    let out = emptyPaths(paths.input, columns);
    for (let p = 0; p < lists.length; p++) {
      const list = lists[p]!;
      if (simple && columns === 0) {
        // The common inner loop: every neighbour extends the path, and nothing but the node is kept.
        budget.addRows(list.length);
        const parent = paths.parent[p]!;
        for (let j = 0; j < list.length; j++) {
          out.parent.push(parent);
          out.at.push(list[j]!);
        }
      } else {
        for (let j = 0; j < list.length; j++) {
          const record = list[j]!;
          if (!simple && !this.#nodeFits(record, paths, p)) {
            budget.tick();
            continue;
          }
          budget.addRows(1);
          this.#push(out, paths, p, record, null);
        }
      }
      if (out.parent.length >= CHUNK_ROWS || budget.yieldDue) {
        yield out;
        out = emptyPaths(paths.input, columns);
      }
    }
    if (out.parent.length > 0) yield out;
  }

  *#runEdges(paths: Paths): Generator<Paths, void, undefined> {
    const e = this.#p;
    const budget = this.#ctx.budget;
    const ids = new Set<string>();
    for (const record of paths.at) ids.add(record.id);
    const hitsById = expandFrontier([...ids], e.rel, e.direction, this.#ctx);
    let out = emptyPaths(paths.input, paths.cols.length);
    for (let p = 0; p < paths.at.length; p++) {
      const hits = hitsById.get(paths.at[p]!.id);
      if (!hits) continue;
      for (const hit of hits) {
        if (!this.#edgeFits(hit.edge, paths, p) || !this.#nodeFits(hit.node, paths, p)) {
          budget.tick();
          continue;
        }
        budget.addRows(1);
        this.#push(out, paths, p, hit.node, hit.edge);
      }
      if (out.parent.length >= CHUNK_ROWS || budget.yieldDue) {
        yield out;
        out = emptyPaths(paths.input, paths.cols.length);
      }
    }
    if (out.parent.length > 0) yield out;
  }

  /** A bound relationship must be this edge; Cypher never binds one relationship twice in a MATCH. */
  #edgeFits(edge: EdgeRecord, paths: Paths, p: number): boolean {
    const e = this.#p;
    if (e.relBound) {
      const bound = valueAt(this.plan, paths, p, e.relSlot);
      if (!(bound instanceof EdgeRef) || !sameEdge(bound.edge, edge)) return false;
    }
    for (const slot of e.partners) {
      const other = valueAt(this.plan, paths, p, slot);
      if (other instanceof EdgeRef && sameEdge(other.edge, edge)) return false;
    }
    return true;
  }
}

function* none(): Generator<Paths, void, undefined> {
  // Nothing can match: no paths.
}

/** One whole-frontier expand per relationship type; several types are merged in (neighbour id, type) order. */
function expandFrontier(frontier: string[], rel: RelPattern, direction: Direction, ctx: RunContext): Map<string, readonly EdgeHit[]> {
  if (rel.types.length <= 1) return ctx.view.edges(frontier, rel.types[0] ?? null, direction);
  const merged = new Map<string, EdgeHit[]>();
  for (const type of new Set(rel.types)) {
    for (const [id, hits] of ctx.view.edges(frontier, type, direction)) {
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

/** Finds pattern comprehensions and predicates, not looking inside them (they prepare their own insides). */
function collectSubqueries(expr: Expr, out: SubqueryExpr[]): void {
  if (expr.kind === 'patternComprehension' || expr.kind === 'patternPredicate') out.push(expr);
  else forEachOperand(expr, (operand) => collectSubqueries(operand, out));
}

/**
 * Work that may pause: it yields (nothing) whenever the budget's slice is used up and returns its
 * result when done. `drive` runs it with pauses between slices, `finish` without (nested in one evaluation).
 */
type Steps<T> = Generator<void, T, undefined>;

/** Runs `steps` to the end, pausing the event loop whenever it yields. Synchronous unless a pause comes. */
function drive<T>(steps: Steps<T>, ctx: RunContext): T | Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (ctx.budget.yieldDue) return ctx.budget.pause().then(() => drive(steps, ctx));
  }
}

/** Runs `steps` to the end without yielding the event loop (for work nested in one evaluation). */
function finish<T>(steps: Steps<T>, ctx: RunContext): T {
  return ctx.budget.withoutPauses(() => {
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  });
}

/**
 * Computes every pattern comprehension and predicate in `exprs` for all `rows` together, so a
 * nested result costs one expand per pattern step for the whole row set, not one per row.
 */
function* prepareSteps(exprs: readonly Expr[], rows: readonly Row[], ctx: RunContext): Steps<void> {
  if (rows.length === 0) return;
  for (const e of exprs) {
    for (const sub of subqueriesOf(e)) {
      const results = yield* subquerySteps(sub, rows, ctx);
      let cache = ctx.prepared.get(sub);
      if (!cache) ctx.prepared.set(sub, (cache = new WeakMap()));
      for (let i = 0; i < rows.length; i++) cache.set(rows[i]!, results[i]!);
    }
  }
}

/**
 * `prepareSteps` pausing the event loop between slices: a comprehension over a hub's 10,000
 * neighbours for a chunk of rows is millions of rows of work, which must not hold the loop.
 */
export function prepareSubqueriesPausing(exprs: readonly Expr[], rows: readonly Row[], ctx: RunContext): void | Promise<void> {
  if (rows.length > 0) return drive(prepareSteps(exprs, rows, ctx), ctx);
}

const subqueries = new WeakMap<Expr, readonly SubqueryExpr[]>();

/** The pattern comprehensions and predicates of an expression (not inside each other), found once per expression. */
function subqueriesOf(expr: Expr): readonly SubqueryExpr[] {
  let found = subqueries.get(expr);
  if (found === undefined) {
    const list: SubqueryExpr[] = [];
    collectSubqueries(expr, list);
    subqueries.set(expr, (found = list));
  }
  return found;
}

/** The value of a pattern comprehension (a list) or predicate (a boolean) for each row, without pauses. */
export function runSubquery(sub: SubqueryExpr, rows: readonly Row[], ctx: RunContext): Value[] {
  return finish(subquerySteps(sub, rows, ctx), ctx);
}

/**
 * The value of a pattern comprehension or predicate for each row, matched chunk by chunk: each chunk's
 * items are projected and charged before the next chunk is matched (the matched rows are not all held
 * at once), and the work yields between chunks when the budget's slice is used up.
 */
function* subquerySteps(sub: SubqueryExpr, rows: readonly Row[], ctx: RunContext): Steps<Value[]> {
  const where = sub.kind === 'patternComprehension' ? sub.where : null;
  let stream = matchPattern(sub.pattern, chunksOf(rows), ctx, where === null ? EMPTY_PUSHDOWN : pushdownOf(where));
  if (where !== null) stream = filterWhere(where, stream, ctx);
  const budget = ctx.budget;
  if (sub.kind === 'patternPredicate') {
    const hit = new Uint8Array(rows.length);
    for (const chunk of stream) {
      for (const origin of chunk.origins) hit[origin] = 1;
      if (budget.yieldDue) yield;
    }
    return rows.map((_, i) => hit[i] === 1);
  }
  const lists: Value[][] = rows.map(() => []);
  for (const chunk of stream) {
    if (chunk.rows.length > 0) {
      yield* prepareSteps([sub.projection], chunk.rows, ctx);
      for (let i = 0; i < chunk.rows.length; i++) {
        const item = evaluate(sub.projection, chunk.rows[i]!, ctx);
        // Each row's list grows by this item: charged before it is kept.
        chargeValue(budget, item, ctx.resolve);
        lists[chunk.origins[i]!]!.push(item);
      }
    }
    if (budget.yieldDue) yield;
  }
  return lists;
}
