import type { Expr, ReturnClause, ReturnItem, WithClause } from '../language/ast.ts';
import { Accumulator, type AggregateCall } from './aggregate.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { evaluate } from './evaluate.ts';
import { forEachOperand } from '../language/expr-operands.ts';
import { functionSpec } from './functions.ts';
import { emptyRow, prepareSubqueriesPausing } from './match.ts';
import type { Chunk, ChunkStream } from './row-stream.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { exprsWeight } from '../plan/expr-weight.ts';
import { STAR_NAMES } from '../language/check.ts';
import { budgetedKey } from './value-size.ts';
import { compareCodePoints, compareValues, typeName, type Value } from './values.ts';

/** RETURN, or WITH (the same projection, into the next part of the statement). */
type Projection = ReturnClause | WithClause;

/** Where RETURN writes its rows, in order. */
export interface RowSink {
  push(values: readonly Value[]): void;
}

/** A projected row on its way to ORDER BY: its values (some computed late), the row they came from. */
interface Entry {
  readonly values: (Value | undefined)[];
  readonly source: Row;
  readonly aggregates: ReadonlyMap<Expr, Value> | null;
  keys: Value[];
  readonly seq: number;
}

/** The same expression, ignoring where it was written. */
function exprKey(expr: Expr): string {
  return JSON.stringify(expr, (key, value: unknown) => (key === 'offset' ? undefined : value));
}

function isAggregateCall(expr: Expr): boolean {
  return expr.kind === 'call' && functionSpec(expr.name)?.aggregate === true;
}

/** Aggregate calls in an expression (never nested: the parser refuses an aggregate inside another). */
export function containsAggregate(expr: Expr): boolean {
  const found: AggregateCall[] = [];
  collectAggregates(expr, found);
  return found.length > 0;
}

function collectAggregates(expr: Expr, out: AggregateCall[]): void {
  if (expr.kind === 'call' && isAggregateCall(expr)) out.push(expr);
  else forEachOperand(expr, (operand) => collectAggregates(operand, out));
}

export function nonNegativeInteger(expr: Expr | null, what: string, ctx: RunContext): number | null {
  if (expr === null) return null;
  const v = evaluate(expr, emptyRow(ctx), ctx);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    const got = v === null ? 'null' : typeof v === 'number' ? `${typeName(v)} ${v}` : typeName(v);
    throw runtimeError(`${what} needs a non-negative integer, got ${got}.`);
  }
  return v;
}

/** What RETURN does, worked out once per statement (the statement cache keeps the clause alive). */
interface ProjectionPlan {
  readonly items: readonly ReturnItem[];
  /** Every item's index. */
  readonly all: readonly number[];
  readonly columns: string[];
  readonly exprs: readonly Expr[];
  readonly aggregateCalls: readonly AggregateCall[];
  /** Items without aggregates: the grouping keys when there are aggregates. */
  readonly keyItems: readonly number[];
  readonly sortKeys: readonly SortKey[];
  /** What ORDER BY reads before it chooses rows (every item under DISTINCT). */
  readonly early: readonly number[];
  readonly earlyExprs: readonly Expr[];
  /** Units of work a row's items (and ORDER BY's expressions) take at most: told per row (exprWeight). */
  readonly rowWeight: number;
  /** The same for what ORDER BY reads before it chooses rows. */
  readonly earlyWeight: number;
}

const plans = new WeakMap<Projection, ProjectionPlan>();

function planOf(clause: Projection, items: readonly ReturnItem[]): ProjectionPlan {
  const exprs = items.map((i) => i.expr);
  const aggregateCalls: AggregateCall[] = [];
  for (const e of [...exprs, ...clause.orderBy.map((s) => s.expr)]) collectAggregates(e, aggregateCalls);
  const keyItems: number[] = [];
  items.forEach((item, i) => {
    const found: AggregateCall[] = [];
    collectAggregates(item.expr, found);
    if (found.length === 0) keyItems.push(i);
  });
  const sortKeys = sortKeysOf(clause, items);
  const early = clause.distinct ? items.map((_, i) => i) : itemsForKeys(sortKeys);
  const earlyExprs = [...early.map((i) => items[i]!.expr), ...sortKeys.flatMap((k) => ('expr' in k ? [k.expr] : []))];
  const rowWeight = exprsWeight(exprs) + exprsWeight(clause.orderBy.map((s) => s.expr));
  return { items, all: items.map((_, i) => i), columns: items.map((i) => i.name), exprs, aggregateCalls, keyItems, sortKeys, early, earlyExprs, rowWeight, earlyWeight: exprsWeight(earlyExprs) };
}

/**
 * The next chunk with rows (null at the end), pausing between chunks when the budget's slice is used
 * up. Synchronous unless a pause is due: most statements never wait on a promise here.
 */
function nextChunk(source: ChunkStream, ctx: RunContext): Chunk | null | Promise<Chunk | null> {
  for (;;) {
    if (ctx.budget.yieldDue) return ctx.budget.pause().then(() => nextChunk(source, ctx));
    const next = source.next();
    if (next.done) return null;
    if (next.value.rows.length > 0) return next.value;
  }
}

/**
 * Projects a stream of rows through RETURN into `sink`: grouping and aggregates, DISTINCT, ORDER BY,
 * SKIP and LIMIT; answers the column names. Without aggregates or ORDER BY, rows stream straight
 * through and LIMIT stops the matching. ORDER BY with LIMIT keeps only the best SKIP + LIMIT rows
 * while matching (top-k) and computes the other columns for those alone. Aggregates are folded as
 * rows stream by, so groups never hold their rows.
 */
export async function runReturn(clause: Projection | WithClause, source: ChunkStream, ctx: RunContext, sink: RowSink): Promise<string[]> {
  const skip = nonNegativeInteger(clause.skip, 'SKIP', ctx) ?? 0;
  const limit = nonNegativeInteger(clause.limit, 'LIMIT', ctx);
  let first: Chunk | null = null;
  let plan = plans.get(clause);
  if (clause.star && plan === undefined) {
    // RETURN * lists the variables in scope (check.ts), by name in code-point order, rows or none.
    const known = STAR_NAMES.get(clause);
    let names = known;
    if (names === undefined) {
      const next = nextChunk(source, ctx);
      first = next instanceof Promise ? await next : next;
      const row = first?.rows[0];
      names = row === undefined ? [] : ctx.layout.names.filter((_, slot) => row[slot] !== undefined).sort(compareCodePoints);
    }
    plan = planOf(clause, names.map((name) => ({ expr: { kind: 'variable', name, offset: clause.offset } as Expr, name, aliased: false })));
    // Names from the scope are the same for every run of the statement: plan them once.
    if (known !== undefined) plans.set(clause, plan);
  } else if (plan === undefined) plans.set(clause, (plan = planOf(clause, clause.items)));
  try {
    if (plan.aggregateCalls.length > 0) await aggregateRows(clause, plan, source, first, ctx, sink, skip, limit);
    else if (clause.orderBy.length > 0) await sortRows(clause, plan, source, first, ctx, sink, skip, limit);
    else await streamRows(clause, plan, source, first, ctx, sink, skip, limit);
  } finally {
    // Stops the matching when LIMIT (or an error) ends the projection early.
    source.return();
  }
  return plan.columns;
}

async function streamRows(clause: Projection, plan: ProjectionPlan, source: ChunkStream, first: Chunk | null, ctx: RunContext, sink: RowSink, skip: number, limit: number | null): Promise<void> {
  const exprs = plan.exprs;
  const seen = clause.distinct ? new Set<string>() : null;
  let passed = 0;
  let emitted = 0;
  if (limit === 0) return;
  for (let chunk: Chunk | null = first; ; chunk = null) {
    if (chunk === null) {
      const next = nextChunk(source, ctx);
      chunk = next instanceof Promise ? await next : next;
    }
    if (chunk === null) break;
    let rows = chunk.rows;
    // Without DISTINCT each row is either skipped or emitted: compute no more than LIMIT needs.
    if (seen === null && limit !== null && rows.length > skip + limit - passed) rows = rows.slice(0, skip + limit - passed);
    const prepared = prepareSubqueriesPausing(exprs, rows, ctx);
    if (prepared !== undefined) await prepared;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      // A row's values can be large (copies of wide nodes): a chunk of them is paused in, not only between.
      ctx.budget.tick(plan.rowWeight);
      if (ctx.budget.yieldDue) await ctx.budget.pause();
      const values = new Array<Value>(exprs.length);
      for (let i = 0; i < exprs.length; i++) values[i] = evaluate(exprs[i]!, row, ctx);
      if (seen !== null && !firstSeen(seen, values, ctx)) continue;
      if (passed++ < skip) continue;
      sink.push(values);
      emitted++;
      if (limit !== null && emitted >= limit) return;
    }
  }
}

/**
 * How an ORDER BY item finds its value: a returned column (by expression or alias), or evaluated
 * over the row with the aliases it mentions in scope.
 */
type SortKey = { readonly item: number } | { readonly expr: Expr; readonly aliases: readonly number[] };

/** Every variable name mentioned in `expr`, at any depth. */
function mentions(expr: Expr, out: Set<string>): Set<string> {
  if (expr.kind === 'variable') out.add(expr.name);
  else if (expr.kind === 'mapProjection') {
    out.add(expr.variable);
    for (const item of expr.items) {
      if (item.kind === 'variableSelector') out.add(item.name);
      if (item.kind === 'literalEntry') mentions(item.value, out);
    }
  } else if (expr.kind === 'patternComprehension' || expr.kind === 'patternPredicate') {
    for (const node of [expr.pattern.start, ...expr.pattern.steps.map((s) => s.node)]) {
      if (node.variable !== null) out.add(node.variable);
      if (node.properties !== null) mentions(node.properties, out);
    }
    if (expr.kind === 'patternComprehension') {
      if (expr.where !== null) mentions(expr.where, out);
      mentions(expr.projection, out);
    }
  } else if (expr.kind === 'existsSubquery' || expr.kind === 'countSubquery') {
    for (const pattern of expr.patterns) {
      for (const node of [pattern.start, ...pattern.steps.map((s) => s.node)]) {
        if (node.variable !== null) out.add(node.variable);
        if (node.properties !== null) mentions(node.properties, out);
      }
    }
    if (expr.where !== null) mentions(expr.where, out);
  } else forEachOperand(expr, (operand) => mentions(operand, out));
  return out;
}

function sortKeysOf(clause: Projection, items: readonly ReturnItem[]): SortKey[] {
  const itemKeys = items.map((i) => exprKey(i.expr));
  return clause.orderBy.map((s) => {
    const same = itemKeys.indexOf(exprKey(s.expr));
    if (same !== -1) return { item: same };
    if (s.expr.kind === 'variable') {
      const name = s.expr.name;
      const alias = items.findIndex((i) => i.aliased && i.name === name);
      if (alias !== -1) return { item: alias };
    }
    const names = mentions(s.expr, new Set());
    const aliases: number[] = [];
    items.forEach((item, i) => {
      if (item.aliased && names.has(item.name)) aliases.push(i);
    });
    return { expr: s.expr, aliases };
  });
}

/**
 * The ORDER BY comparison; each one counts as work, and as much work as it did on large values (long
 * lists, strings, maps), so a long sort still stops at the time budget and pauses on time.
 */
function compareEntries(clause: Projection, ctx: RunContext): (a: Entry, b: Entry) => number {
  const order = clause.orderBy;
  const budget = ctx.budget;
  return (a, b) => {
    budget.tick();
    for (let i = 0; i < order.length; i++) {
      const c = compareValues(a.keys[i]!, b.keys[i]!, budget);
      if (c !== 0) return order[i]!.descending ? -c : c;
    }
    // Ties keep match order.
    return a.seq - b.seq;
  };
}

/** DISTINCT: whether these values are new (then their key is kept, and charged to the budget). */
function firstSeen(seen: Set<string>, values: readonly Value[], ctx: RunContext): boolean {
  const key = budgetedKey(values, ctx.budget);
  if (seen.has(key)) return false;
  ctx.budget.chargeBytes(key.length);
  seen.add(key);
  return true;
}

/** Computes the missing values of the given items for every entry (their subqueries in bulk, pausing between slices). */
async function fill(entries: readonly Entry[], items: readonly ReturnItem[], which: readonly number[], ctx: RunContext): Promise<void> {
  if (which.length === 0 || entries.length === 0) return;
  const missing = which.filter((i) => entries.some((e) => e.values[i] === undefined));
  if (missing.length === 0) return;
  const prepared = prepareSubqueriesPausing(missing.map((i) => items[i]!.expr), entries.map((e) => e.source), ctx);
  if (prepared !== undefined) await prepared;
  // Indexed loops in the async projections: a for-of over an array there calls the array iterator's next() per item.
  for (let n = 0; n < entries.length; n++) {
    const entry = entries[n]!;
    ctx.budget.tick();
    if (ctx.budget.yieldDue) await ctx.budget.pause();
    for (let m = 0; m < missing.length; m++) {
      const i = missing[m]!;
      if (entry.values[i] === undefined) entry.values[i] = evaluate(items[i]!.expr, entry.source, ctx);
    }
  }
}

/** The ORDER BY values of an entry, with RETURN's aliases in scope and the group's aggregates. */
function sortValues(keys: readonly SortKey[], entry: Entry, items: readonly ReturnItem[], ctx: RunContext): Value[] {
  const out: Value[] = [];
  for (const key of keys) {
    if ('item' in key) {
      out.push(entry.values[key.item]!);
      continue;
    }
    // The row itself (its subqueries prepared), or a copy with the aliases the expression mentions.
    let scope: Row = entry.source;
    if (key.aliases.length > 0) {
      const s = entry.source.slice();
      for (const i of key.aliases) s[slotOf(ctx, items[i]!.name)] = entry.values[i]!;
      scope = s;
    }
    const saved = ctx.aggregates;
    ctx.aggregates = entry.aggregates;
    try {
      out.push(evaluate(key.expr, scope, ctx));
    } finally {
      ctx.aggregates = saved;
    }
  }
  return out;
}

/** Items ORDER BY reads before choosing rows: those it names, and the aliases its expressions mention. */
function itemsForKeys(keys: readonly SortKey[]): number[] {
  const needed = new Set<number>();
  for (const key of keys) {
    if ('item' in key) needed.add(key.item);
    else for (const i of key.aliases) needed.add(i);
  }
  return [...needed];
}

/** Writes the chosen entries, pausing between slices (writing a large result is work too). */
async function emit(entries: readonly Entry[], sink: RowSink, skip: number, limit: number | null, ctx: RunContext): Promise<void> {
  const end = limit === null ? entries.length : Math.min(entries.length, skip + limit);
  const budget = ctx.budget;
  for (let i = skip; i < end; i++) {
    sink.push(entries[i]!.values as Value[]);
    budget.tick();
    if (budget.yieldDue) await budget.pause();
  }
}

/** ORDER BY without aggregates: all rows, or the best SKIP + LIMIT of them kept in a bounded heap. */
async function sortRows(clause: Projection, plan: ProjectionPlan, source: ChunkStream, first: Chunk | null, ctx: RunContext, sink: RowSink, skip: number, limit: number | null): Promise<void> {
  const { items, sortKeys: keys, early, earlyExprs } = plan;
  const compare = compareEntries(clause, ctx);
  const seen = clause.distinct ? new Set<string>() : null;
  const heap = limit === null || clause.distinct ? null : new TopK(skip + limit, compare);
  const kept: Entry[] = [];
  let seq = 0;
  for (let chunk: Chunk | null = first; ; chunk = null) {
    if (chunk === null) {
      const next = nextChunk(source, ctx);
      chunk = next instanceof Promise ? await next : next;
    }
    if (chunk === null) break;
    const prepared = prepareSubqueriesPausing(earlyExprs, chunk.rows, ctx);
    if (prepared !== undefined) await prepared;
    const rows = chunk.rows;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      ctx.budget.tick(plan.earlyWeight);
      if (ctx.budget.yieldDue) await ctx.budget.pause();
      const values = new Array<Value | undefined>(items.length).fill(undefined);
      for (let e = 0; e < early.length; e++) {
        const i = early[e]!;
        values[i] = evaluate(items[i]!.expr, row, ctx);
      }
      if (seen !== null && !firstSeen(seen, values as Value[], ctx)) continue;
      const entry: Entry = { values, source: row, aggregates: null, keys: [], seq: seq++ };
      entry.keys = sortValues(keys, entry, items, ctx);
      if (heap !== null) heap.offer(entry);
      else kept.push(entry);
    }
  }
  const sorted = sortPausing(heap !== null ? heap.entries() : kept, compare, ctx);
  const chosen = sorted instanceof Promise ? await sorted : sorted;
  const window = chosen.slice(skip, limit === null ? undefined : skip + limit);
  await fill(window, items, plan.all, ctx);
  await emit(window, sink, 0, null, ctx);
}

interface Group {
  readonly keys: Value[];
  readonly source: Row;
  readonly accumulators: Accumulator[];
}

async function aggregateRows(clause: Projection, plan: ProjectionPlan, source: ChunkStream, first: Chunk | null, ctx: RunContext, sink: RowSink, skip: number, limit: number | null): Promise<void> {
  const { items, keyItems, aggregateCalls: calls } = plan;
  const exprs = [...plan.exprs, ...clause.orderBy.map((s) => s.expr)];
  const groups = new Map<string, Group>();
  const accumulators = (): Accumulator[] => calls.map((c) => new Accumulator(c, ctx.layout.countsRows(c)));
  for (let chunk: Chunk | null = first; ; chunk = null) {
    if (chunk === null) {
      const next = nextChunk(source, ctx);
      chunk = next instanceof Promise ? await next : next;
    }
    if (chunk === null) break;
    const prepared = prepareSubqueriesPausing(exprs, chunk.rows, ctx);
    if (prepared !== undefined) await prepared;
    if (keyItems.length === 0) {
      // One group: fold the chunk at once (a count adds the chunk's length).
      let group = groups.get('');
      if (group === undefined) groups.set('', (group = { keys: [], source: chunk.rows[0]!, accumulators: accumulators() }));
      if (group.accumulators.every((acc) => acc.countsRows)) {
        for (const acc of group.accumulators) acc.addAll(chunk.rows, ctx);
        continue;
      }
      // Values to fold (collect(properties(a)), say) can be large: a chunk of them is paused in too.
      for (const row of chunk.rows) {
        ctx.budget.tick(plan.rowWeight);
        if (ctx.budget.yieldDue) await ctx.budget.pause();
        for (const acc of group.accumulators) acc.add(row, ctx);
      }
      continue;
    }
    for (const row of chunk.rows) {
      ctx.budget.tick(plan.rowWeight);
      if (ctx.budget.yieldDue) await ctx.budget.pause();
      const keys = keyItems.map((i) => evaluate(items[i]!.expr, row, ctx));
      const k = budgetedKey(keys, ctx.budget);
      let group = groups.get(k);
      if (group === undefined) {
        // A new group keeps its key for the rest of the statement.
        ctx.budget.chargeBytes(k.length);
        groups.set(k, (group = { keys, source: row, accumulators: accumulators() }));
      }
      for (const acc of group.accumulators) acc.add(row, ctx);
    }
  }
  // With no grouping keys, aggregates over zero rows still give one row (count 0, collect []).
  if (groups.size === 0 && keyItems.length === 0) groups.set('', { keys: [], source: emptyRow(ctx), accumulators: accumulators() });
  let entries: Entry[] = [];
  let seq = 0;
  for (const group of groups.values()) {
    ctx.budget.tick();
    if (ctx.budget.yieldDue) await ctx.budget.pause();
    const aggregates = new Map<Expr, Value>();
    calls.forEach((call, i) => {
      aggregates.set(call, group.accumulators[i]!.result());
    });
    const saved = ctx.aggregates;
    ctx.aggregates = aggregates;
    try {
      const values = items.map((item, index) => {
        const keyed = keyItems.indexOf(index);
        return keyed === -1 ? evaluate(item.expr, group.source, ctx) : group.keys[keyed]!;
      });
      entries.push({ values, source: group.source, aggregates, keys: [], seq: seq++ });
    } finally {
      ctx.aggregates = saved;
    }
  }
  if (clause.distinct) {
    const seen = new Set<string>();
    entries = entries.filter((e) => firstSeen(seen, e.values as Value[], ctx));
  }
  if (clause.orderBy.length > 0) {
    for (const entry of entries) entry.keys = sortValues(plan.sortKeys, entry, items, ctx);
    const sorted = sortPausing(entries, compareEntries(clause, ctx), ctx);
    entries = sorted instanceof Promise ? await sorted : sorted;
  }
  await emit(entries, sink, skip, limit, ctx);
}

/**
 * Runs of this many entries are insertion-sorted, then merged. As few as this are sorted in one go:
 * a comparison of two maps serialises both, so even a few hundred entries at once held the event
 * loop for hundreds of milliseconds (the fuzzer: ORDER BY a map LIMIT 10000).
 */
const SORT_RUN = 32;

/**
 * A stable sort of `entries` by `compare` that yields the event loop between slices: insertion-sorted
 * runs, then bottom-up merges, with a pause check after every insertion and every merged entry. Every
 * comparison counts as work (compareEntries ticks), so the slice ends on time even when values are
 * large and comparisons slow.
 */
function sortPausing(entries: Entry[], compare: (a: Entry, b: Entry) => number, ctx: RunContext): Entry[] | Promise<Entry[]> {
  // A few entries (ORDER BY … LIMIT keeps SKIP + LIMIT) are sorted at once, with no async frame.
  return entries.length <= SORT_RUN ? entries.sort(compare) : sortInRuns(entries, compare, ctx);
}

async function sortInRuns(entries: Entry[], compare: (a: Entry, b: Entry) => number, ctx: RunContext): Promise<Entry[]> {
  const budget = ctx.budget;
  const n = entries.length;
  let from = entries;
  for (let start = 0; start < n; start += SORT_RUN) {
    const end = Math.min(n, start + SORT_RUN);
    for (let i = start + 1; i < end; i++) {
      const item = from[i]!;
      let j = i - 1;
      while (j >= start && compare(from[j]!, item) > 0) {
        from[j + 1] = from[j]!;
        j--;
      }
      from[j + 1] = item;
      if (budget.yieldDue) await budget.pause();
    }
  }
  let to = new Array<Entry>(n);
  for (let width = SORT_RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // Ties take the left run's entry first: stable.
        to[k++] = compare(from[j]!, from[i]!) < 0 ? from[j++]! : from[i++]!;
        if (budget.yieldDue) await budget.pause();
      }
      while (i < mid) to[k++] = from[i++]!;
      while (j < hi) to[k++] = from[j++]!;
    }
    [from, to] = [to, from];
  }
  return from;
}

/** The best `capacity` entries seen, by `compare` (a max-heap whose root is the worst kept). */
class TopK {
  readonly #capacity: number;
  readonly #compare: (a: Entry, b: Entry) => number;
  readonly #heap: Entry[] = [];

  constructor(capacity: number, compare: (a: Entry, b: Entry) => number) {
    this.#capacity = capacity;
    this.#compare = compare;
  }

  offer(entry: Entry): void {
    const heap = this.#heap;
    if (this.#capacity === 0) return;
    if (heap.length < this.#capacity) {
      heap.push(entry);
      this.#up(heap.length - 1);
    } else if (this.#compare(entry, heap[0]!) < 0) {
      heap[0] = entry;
      this.#down(0);
    }
  }

  /** The entries kept, in heap order (a copy). */
  entries(): Entry[] {
    return [...this.#heap];
  }

  #up(i: number): void {
    const heap = this.#heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#compare(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #down(i: number): void {
    const heap = this.#heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && this.#compare(heap[l]!, heap[worst]!) > 0) worst = l;
      if (r < heap.length && this.#compare(heap[r]!, heap[worst]!) > 0) worst = r;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}
