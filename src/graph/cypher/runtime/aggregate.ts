import type { Expr } from '../language/ast.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { evaluate } from './evaluate.ts';
import type { Row, RunContext } from './run-context.ts';
import { budgetedKey, chargeValue } from './value-size.ts';
import { compareValues, typeName, type Value } from './values.ts';

export type AggregateCall = Extract<Expr, { kind: 'call' }>;

/**
 * The running state of one aggregate over one group: rows are added as they stream by, so no group
 * keeps its rows (a count over a million paths holds one number).
 */
export class Accumulator {
  readonly #call: AggregateCall;
  /** count(*), or a count(v) of a never-null v (see SlotLayout.countsRows): counts rows, reads nothing. */
  readonly #rows: boolean;
  readonly #seen: Set<string> | null;
  #count = 0;
  #total = 0;
  #best: Value = null;
  readonly #values: Value[] = [];
  /** stDev / stDevP: Welford's running mean and sum of squared deviations (no values kept). */
  #mean = 0;
  #m2 = 0;
  /** percentileCont / percentileDisc: the percentile, read from the first row that gives one. */
  #percentile: number | null = null;

  constructor(call: AggregateCall, countsRows: boolean) {
    this.#call = call;
    this.#rows = call.star || countsRows;
    this.#seen = call.distinct ? new Set() : null;
  }

  /** Whether it only counts rows (reads no value): a chunk is added at once. */
  get countsRows(): boolean {
    return this.#rows;
  }

  /** Adds every row of a chunk. */
  addAll(rows: readonly Row[], ctx: RunContext): void {
    if (this.#rows) this.#count += rows.length;
    else for (let i = 0; i < rows.length; i++) this.add(rows[i]!, ctx);
  }

  add(row: Row, ctx: RunContext): void {
    const call = this.#call;
    if (this.#rows) {
      this.#count++;
      return;
    }
    const v = evaluate(call.args[0]!, row, ctx);
    if (v === null) return;
    if (this.#seen !== null) {
      const key = budgetedKey([v], ctx.budget);
      if (this.#seen.has(key)) return;
      // A key kept for the rest of the statement.
      ctx.budget.chargeBytes(key.length);
      this.#seen.add(key);
    }
    switch (call.name) {
      case 'count':
        this.#count++;
        return;
      case 'collect':
        // The list and, in the end, its JSON grow by this value: charged before it is kept (a string,
        // the commonest item, by its length and quotes without a call).
        if (typeof v === 'string') ctx.budget.chargeBytes(v.length + 3);
        else chargeValue(ctx.budget, v, ctx.resolve);
        this.#values.push(v);
        return;
      case 'sum':
      case 'avg':
        if (typeof v !== 'number') throw runtimeError(`Type error in ${call.name}(): expected numbers, got ${typeName(v)}.`);
        this.#total += v;
        this.#count++;
        return;
      case 'min':
      case 'max': {
        if (this.#count++ === 0) this.#best = v;
        else {
          const c = compareValues(v, this.#best, ctx.budget);
          if (call.name === 'min' ? c < 0 : c > 0) this.#best = v;
        }
        return;
      }
      case 'stdev':
      case 'stdevp': {
        if (typeof v !== 'number') throw runtimeError(`Type error in ${call.name}(): expected numbers, got ${typeName(v)}.`);
        const delta = v - this.#mean;
        this.#mean += delta / ++this.#count;
        this.#m2 += delta * (v - this.#mean);
        return;
      }
      case 'percentilecont':
      case 'percentiledisc': {
        if (typeof v !== 'number') throw runtimeError(`Type error in ${call.name}(): expected numbers, got ${typeName(v)}.`);
        if (this.#percentile === null) {
          const p = evaluate(call.args[1]!, row, ctx);
          if (typeof p !== 'number' || p < 0 || p > 1) {
            throw runtimeError(`${call.name === 'percentilecont' ? 'percentileCont' : 'percentileDisc'}() expects a percentile from 0.0 to 1.0, got ${p === null ? 'null' : `${typeName(p)} ${String(p)}`}.`);
          }
          this.#percentile = p;
        }
        // Kept until the group ends, to be sorted: charged as collect() charges a number.
        chargeValue(ctx.budget, v, null);
        this.#values.push(v);
        return;
      }
      default:
        throw runtimeError(`${call.name}() is not an aggregate.`);
    }
  }

  /** percentileCont (interpolated between the two nearest values) or percentileDisc (the nearest value at or above it). */
  #percentileOf(): Value {
    const values = this.#values as number[];
    const n = values.length;
    if (n === 0 || this.#percentile === null) return null;
    values.sort((a, b) => a - b);
    const p = this.#percentile;
    if (this.#call.name === 'percentiledisc') return values[p === 0 ? 0 : Math.ceil(p * n) - 1]!;
    const at = p * (n - 1);
    const lo = Math.floor(at);
    const hi = Math.ceil(at);
    return lo === hi ? values[lo]! : values[lo]! + (at - lo) * (values[hi]! - values[lo]!);
  }

  result(): Value {
    switch (this.#call.name) {
      case 'count': return this.#count;
      case 'collect': return this.#values;
      case 'sum': return this.#total;
      case 'avg': return this.#count === 0 ? null : this.#total / this.#count;
      // The sample standard deviation (stDev, 0 for fewer than two values) and the population one (stDevP).
      case 'stdev': return this.#count < 2 ? 0 : Math.sqrt(this.#m2 / (this.#count - 1));
      case 'stdevp': return this.#count === 0 ? 0 : Math.sqrt(this.#m2 / this.#count);
      case 'percentilecont':
      case 'percentiledisc': return this.#percentileOf();
      default: return this.#best;
    }
  }
}
