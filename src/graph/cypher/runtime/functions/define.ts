import type { Expr } from '../../language/ast.ts';
import { runtimeError } from '../../language/cypher-error.ts';
import type { RunContext } from '../run-context.ts';
import { typeName, type Value } from '../values.ts';

/** A function call as the parser wrote it (its name lower-cased). */
export type CallExpr = Extract<Expr, { kind: 'call' }>;

interface FunctionArity {
  /** Its name as Cypher spells it (`toLower`): the table keys it lower-cased, since names are case-insensitive. */
  readonly name: string;
  readonly minArgs: number;
  readonly maxArgs: number;
}

/** A scalar function of its arguments' values (the caller evaluates them all first, in order). */
export interface EagerFunction extends FunctionArity {
  readonly aggregate?: false;
  readonly lazy?: false;
  evaluate(args: readonly Value[], ctx: RunContext, call: CallExpr): Value;
}

/** A scalar function that evaluates its own arguments, when and if it needs them (`coalesce` stops at the first non-null). */
interface LazyFunction extends FunctionArity {
  readonly aggregate?: false;
  readonly lazy: true;
  /** `arg(i)` evaluates argument i (of `call.args.length`) against the current row. */
  evaluate(arg: (i: number) => Value, ctx: RunContext, call: CallExpr): Value;
}

/** A function over the rows of a group: runtime/aggregate.ts accumulates it; it has no per-row evaluation. */
export interface AggregateFunction extends FunctionArity {
  readonly aggregate: true;
}

export type CypherFunction = EagerFunction | LazyFunction | AggregateFunction;

/**
 * Entries for the function table (runtime/functions.ts merges every file's list): an identity that
 * gives each object literal its type, so `evaluate`'s parameters need no annotations.
 */
export function defineFunctions(entries: readonly CypherFunction[]): readonly CypherFunction[] {
  return entries;
}

/** `Integer 3`, `String "ab"` (shortened), `List`, `null`: a value as an error message names it. */
function describeValue(value: Value): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeName(value)} ${String(value)}`;
  if (typeof value === 'string') return `String ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeName(value);
}

/** `substring() expects a String, got Integer 3.` (a TG_CYPHER_RUNTIME error). */
export function argumentError(fn: string, expected: string, got: Value, which?: string): Error {
  const where = which === undefined ? '' : ` as its ${which}`;
  return runtimeError(`${fn}() expects ${expected}${where}, got ${describeValue(got)}.`, { function: fn, expected, got: typeName(got) });
}

/** The message the functions that predate the table give (kept as they were): `Type error in abs(): expected a number, got String.` */
export function typeError(where: string, expected: string, got: Value): Error {
  return runtimeError(`Type error in ${where}: expected ${expected}, got ${typeName(got)}.`, { expected, got: typeName(got) });
}

/** The number of code points of a string, without building an array of them. */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (u >= 0xd800 && u <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * A function of one argument that gives null for null (most of Cypher's): `f` sees the value only when
 * it is not null.
 */
export function unary(name: string, f: (v: Exclude<Value, null>, ctx: RunContext, call: CallExpr) => Value): EagerFunction {
  return {
    name,
    minArgs: 1,
    maxArgs: 1,
    evaluate: (args, ctx, call) => {
      const v = args[0]!;
      return v === null ? null : f(v, ctx, call);
    },
  };
}

/** A function that gives null when any argument is null, else `f` of them (substring, range, atan2, ...). */
export function nullIn(name: string, minArgs: number, maxArgs: number, f: (args: readonly Value[], ctx: RunContext, call: CallExpr) => Value): EagerFunction {
  return {
    name,
    minArgs,
    maxArgs,
    evaluate: (args, ctx, call) => (args.includes(null) ? null : f(args, ctx, call)),
  };
}

/** A function of no arguments (pi(), rand()). */
export function constant(name: string, f: () => Value): EagerFunction {
  return { name, minArgs: 0, maxArgs: 0, evaluate: f };
}
