import type { Expr, ReturnClause } from './ast.ts';
import { runtimeError } from './cypher-error.ts';
import { evaluate } from './evaluate.ts';
import { functionSpec } from './functions.ts';
import { prepareSubqueries } from './match.ts';
import type { Row, RunContext } from './run-context.ts';
import { compareCodePoints, compareValues, typeName, valueKey, type Value } from './values.ts';
import { forEachOperand } from './expr-operands.ts';

export interface Projection {
  readonly columns: string[];
  readonly rows: Value[][];
}

interface Projected {
  values: Value[];
  /** The bindings ORDER BY may still read: the row itself, or a group's first row. */
  source: Row;
  aggregates: ReadonlyMap<Expr, Value> | null;
}

/** The same expression, ignoring where it was written. */
export function exprKey(expr: Expr): string {
  return JSON.stringify(expr, (key, value: unknown) => (key === 'offset' ? undefined : value));
}

function isAggregateCall(expr: Expr): boolean {
  return expr.kind === 'call' && functionSpec(expr.name)?.aggregate === true;
}

/** Aggregate calls in an expression (never nested: the parser refuses an aggregate inside another). */
function collectAggregates(expr: Expr, out: Extract<Expr, { kind: 'call' }>[]): void {
  if (expr.kind === 'call' && isAggregateCall(expr)) out.push(expr);
  else forEachOperand(expr, (operand) => collectAggregates(operand, out));
}

function aggregate(call: Extract<Expr, { kind: 'call' }>, rows: readonly Row[], ctx: RunContext): Value {
  if (call.star) return rows.length;
  let values: Value[] = [];
  for (const row of rows) {
    const v = evaluate(call.args[0]!, row, ctx);
    if (v !== null) values.push(v);
  }
  if (call.distinct) {
    const seen = new Set<string>();
    values = values.filter((v) => {
      const k = valueKey(v);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  switch (call.name) {
    case 'count': return values.length;
    case 'collect': return values;
    case 'sum':
    case 'avg': {
      let total = 0;
      for (const v of values) {
        if (typeof v !== 'number') throw runtimeError(`Type error in ${call.name}(): expected numbers, got ${typeName(v)}.`);
        total += v;
      }
      if (call.name === 'sum') return total;
      return values.length === 0 ? null : total / values.length;
    }
    case 'min':
    case 'max': {
      let best: Value = null;
      for (const v of values) {
        if (best === null) best = v;
        else {
          const c = compareValues(v, best);
          if (call.name === 'min' ? c < 0 : c > 0) best = v;
        }
      }
      return best;
    }
    default:
      throw runtimeError(`${call.name}() is not an aggregate.`);
  }
}

function nonNegativeInteger(expr: Expr | null, what: string, ctx: RunContext): number | null {
  if (expr === null) return null;
  const v = evaluate(expr, new Map(), ctx);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw runtimeError(`${what} needs a non-negative integer, got ${v === null ? 'null' : typeName(v)} ${typeof v === 'number' ? v : ''}`.trim() + '.');
  }
  return v;
}

/** Projects rows through RETURN: grouping and aggregates, DISTINCT, ORDER BY, SKIP and LIMIT. */
export function runReturn(clause: ReturnClause, rows: readonly Row[], ctx: RunContext): Projection {
  const items = clause.star
    ? [...(rows[0]?.keys() ?? [])].sort(compareCodePoints).map((name) => ({ expr: { kind: 'variable', name, offset: clause.offset } as Expr, name, aliased: false }))
    : clause.items;
  const columns = items.map((i) => i.name);
  const sortExprs = clause.orderBy.map((s) => s.expr);
  prepareSubqueries([...items.map((i) => i.expr), ...sortExprs], rows, ctx);

  const aggregateCalls: Extract<Expr, { kind: 'call' }>[] = [];
  for (const e of [...items.map((i) => i.expr), ...sortExprs]) collectAggregates(e, aggregateCalls);
  let projected: Projected[];
  if (aggregateCalls.length === 0) {
    projected = rows.map((row) => ({ values: items.map((i) => evaluate(i.expr, row, ctx)), source: row, aggregates: null }));
  } else {
    const keyItems = items.map((item, index) => ({ item, index })).filter(({ item }) => {
      const found: Extract<Expr, { kind: 'call' }>[] = [];
      collectAggregates(item.expr, found);
      return found.length === 0;
    });
    const groups = new Map<string, { rows: Row[]; keys: Value[] }>();
    for (const row of rows) {
      const keys = keyItems.map(({ item }) => evaluate(item.expr, row, ctx));
      const k = keys.map(valueKey).join('\u0000');
      const group = groups.get(k);
      if (group) group.rows.push(row);
      else groups.set(k, { rows: [row], keys });
    }
    // With no grouping keys, aggregates over zero rows still give one row (count 0, collect []).
    if (groups.size === 0 && keyItems.length === 0) groups.set('', { rows: [], keys: [] });
    projected = [];
    for (const group of groups.values()) {
      const aggregates = new Map<Expr, Value>();
      for (const call of aggregateCalls) aggregates.set(call, aggregate(call, group.rows, ctx));
      const source = group.rows[0] ?? new Map<string, Value>();
      const saved = ctx.aggregates;
      ctx.aggregates = aggregates;
      try {
        const values = items.map((item, index) => {
          const keyed = keyItems.findIndex((k) => k.index === index);
          return keyed === -1 ? evaluate(item.expr, source, ctx) : group.keys[keyed]!;
        });
        projected.push({ values, source, aggregates });
      } finally {
        ctx.aggregates = saved;
      }
    }
  }

  if (clause.distinct) {
    const seen = new Set<string>();
    projected = projected.filter((p) => {
      const k = p.values.map(valueKey).join('\u0000');
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }

  if (clause.orderBy.length > 0) {
    const itemKeys = items.map((i) => exprKey(i.expr));
    const keyed = projected.map((p) => ({ p, keys: clause.orderBy.map((s) => sortValue(s.expr, p, items, itemKeys, ctx)) }));
    // Array.prototype.sort is stable, so ties keep match order.
    keyed.sort((a, b) => {
      for (let i = 0; i < clause.orderBy.length; i++) {
        const c = compareValues(a.keys[i]!, b.keys[i]!);
        if (c !== 0) return clause.orderBy[i]!.descending ? -c : c;
      }
      return 0;
    });
    projected = keyed.map((k) => k.p);
  }

  const skip = nonNegativeInteger(clause.skip, 'SKIP', ctx) ?? 0;
  const limit = nonNegativeInteger(clause.limit, 'LIMIT', ctx);
  const window = projected.slice(skip, limit === null ? undefined : skip + limit);
  return { columns, rows: window.map((p) => p.values) };
}

/** An ORDER BY key: a returned column when the expression or alias names one, else evaluated over the row with aliases in scope. */
function sortValue(expr: Expr, p: Projected, items: readonly { expr: Expr; name: string; aliased: boolean }[], itemKeys: readonly string[], ctx: RunContext): Value {
  const key = exprKey(expr);
  const same = itemKeys.indexOf(key);
  if (same !== -1) return p.values[same]!;
  if (expr.kind === 'variable') {
    const alias = items.findIndex((i) => i.aliased && i.name === expr.name);
    if (alias !== -1) return p.values[alias]!;
  }
  const scope = new Map(p.source);
  items.forEach((item, i) => {
    if (item.aliased) scope.set(item.name, p.values[i]!);
  });
  const saved = ctx.aggregates;
  ctx.aggregates = p.aggregates;
  try {
    return evaluate(expr, scope, ctx);
  } finally {
    ctx.aggregates = saved;
  }
}
