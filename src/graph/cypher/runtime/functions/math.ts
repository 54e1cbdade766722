import { runtimeError } from '../../language/cypher-error.ts';
import type { Value } from '../values.ts';
import { argumentError, constant, defineFunctions, nullIn, typeError, unary, type EagerFunction } from './define.ts';

/**
 * A result a function gives: our values are JSON numbers, which hold no NaN or Infinity (where Cypher
 * gives them, as sqrt(-1) or log(0), the statement fails with a TG_CYPHER_RUNTIME error instead).
 */
function finite(fn: string, x: number, value: number): number {
  if (!Number.isFinite(value)) throw runtimeError(`${fn}(${x}) is ${String(value)}, which this engine's numbers (JSON) cannot hold.`, { function: fn });
  return value === 0 ? 0 : value;
}

function numberArg(fn: string, v: Value, which?: string): number {
  if (typeof v !== 'number') throw argumentError(fn, 'a Number', v, which);
  return v;
}

/** A function of one number: null for null. */
function numeric(name: string, f: (x: number) => number): EagerFunction {
  return unary(name, (v) => {
    const x = numberArg(name, v);
    return finite(name, x, f(x));
  });
}

const MODES = ['UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN'] as const;
type RoundingMode = (typeof MODES)[number];

/** `y` rounded to an integer by a java.math.RoundingMode (UNNECESSARY aside). */
function roundBy(y: number, mode: RoundingMode): number {
  const down = Math.trunc(y);
  if (down === y) return y;
  const away = down + Math.sign(y);
  switch (mode) {
    case 'UP': return away;
    case 'DOWN': return down;
    case 'CEILING': return Math.ceil(y);
    case 'FLOOR': return Math.floor(y);
    default: {
      const frac = Math.abs(y - down);
      if (frac !== 0.5) return frac > 0.5 ? away : down;
      if (mode === 'HALF_UP') return away;
      if (mode === 'HALF_DOWN') return down;
      return down % 2 === 0 ? down : away;
    }
  }
}

/** Numeric functions. */
export const MATH_FUNCTIONS = defineFunctions([
  unary('abs', (v) => {
    if (typeof v !== 'number') throw typeError('abs()', 'a number', v);
    return Math.abs(v);
  }),
  // round(x): the nearest integer, halves toward positive infinity (Java's Math.round, as Neo4j);
  // round(x, precision[, mode]): to that many decimals, halves away from zero unless a mode is given.
  nullIn('round', 1, 3, (args) => {
      const x = numberArg('round', args[0]!);
      if (args.length === 1) return finite('round', x, Math.floor(x + 0.5));
      const p = args[1]!;
      if (typeof p !== 'number' || !Number.isInteger(p)) throw argumentError('round', 'an Integer', p, 'precision');
      if (p < 0 || p > 15) throw argumentError('round', 'a precision from 0 to 15', p, 'precision');
      let mode: RoundingMode = 'HALF_UP';
      if (args.length === 3) {
        const m = args[2]!;
        if (typeof m !== 'string' || !(MODES as readonly string[]).includes(m.toUpperCase())) throw argumentError('round', `a rounding mode (${MODES.join(', ')})`, m, 'mode');
        mode = m.toUpperCase() as RoundingMode;
      }
      // Scaled through decimal text, so 2.675 (stored as 2.67499...) rounds as written.
      const scaled = Number(`${x}e${p}`);
      const rounded = roundBy(Number.isFinite(scaled) ? scaled : x * 10 ** p, mode);
      return finite('round', x, Number(`${rounded}e-${p}`));
  }),
  numeric('ceil', Math.ceil),
  numeric('floor', Math.floor),
  numeric('sqrt', Math.sqrt),
  numeric('sign', Math.sign),
  numeric('log', Math.log),
  numeric('log10', Math.log10),
  numeric('exp', Math.exp),
  numeric('sin', Math.sin),
  numeric('cos', Math.cos),
  numeric('tan', Math.tan),
  numeric('asin', Math.asin),
  numeric('acos', Math.acos),
  numeric('atan', Math.atan),
  numeric('cot', (x) => 1 / Math.tan(x)),
  numeric('degrees', (x) => (x * 180) / Math.PI),
  numeric('radians', (x) => (x * Math.PI) / 180),
  numeric('haversin', (x) => (1 - Math.cos(x)) / 2),
  nullIn('atan2', 2, 2, (args) => {
      const y = numberArg('atan2', args[0]!, 'y');
      const x = numberArg('atan2', args[1]!, 'x');
      return finite('atan2', y, Math.atan2(y, x));
  }),
  // Our numbers are never NaN (JSON has none): isNaN of a number is false.
  unary('isNaN', (v) => {
    numberArg('isNaN', v);
    return false;
  }),
  constant('rand', Math.random),
  constant('pi', () => Math.PI),
  constant('e', () => Math.E),
]);
