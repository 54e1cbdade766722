import { LIST_SLOT_BYTES } from '../value-size.ts';
import { CHARS_PER_UNIT_SHIFT, type Value } from '../values.ts';
import { argumentError, defineFunctions, typeError, unary, type EagerFunction } from './define.ts';
import type { RunContext } from '../run-context.ts';

/** toString(): a string, number or boolean as text. */
function stringOf(v: Exclude<Value, null>): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** toInteger() / toFloat(): undefined for a type it cannot convert, null for a string that is no number. */
function numberOf(v: Exclude<Value, null>, integer: boolean, ctx: RunContext): number | null | undefined {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string') {
    // Parsing reads every character: told first, as any scan of a string is.
    ctx.budget.tick(v.length >>> CHARS_PER_UNIT_SHIFT);
    const text = v.trim();
    n = text === '' ? Number.NaN : Number(text);
  } else if (typeof v === 'boolean' && integer) n = Number(v);
  else return undefined;
  if (!Number.isFinite(n)) return null;
  if (!integer) return n;
  const t = Math.trunc(n);
  return Number.isSafeInteger(t) ? t : null;
}

/**
 * toBoolean(): booleans as they are, the strings 'true' and 'false' (any case, trimmed; others null),
 * integers by whether they are not 0. A Float is refused by Cypher; here 1.0 is the Integer 1.
 */
function booleanOf(v: Exclude<Value, null>, ctx: RunContext): boolean | null | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    ctx.budget.tick(v.length >>> CHARS_PER_UNIT_SHIFT);
    const text = v.length > 16 ? '' : v.trim().toLowerCase();
    return text === 'true' ? true : text === 'false' ? false : null;
  }
  if (typeof v === 'number' && Number.isInteger(v)) return v !== 0;
  return undefined;
}

type Converter = (v: Exclude<Value, null>, ctx: RunContext) => Value | undefined;

const CONVERTERS: Readonly<Record<'Boolean' | 'Integer' | 'Float' | 'String', Converter>> = {
  Boolean: booleanOf,
  Integer: (v, ctx) => numberOf(v, true, ctx),
  Float: (v, ctx) => numberOf(v, false, ctx),
  String: stringOf,
};

/** toX(v), which refuses a type it cannot convert, and toXOrNull(v), which gives null for it. */
function converters(type: keyof typeof CONVERTERS): EagerFunction[] {
  const convert = CONVERTERS[type];
  return [
    unary(`to${type}`, (v, ctx) => {
      const out = convert(v, ctx);
      if (out !== undefined) return out;
      // The messages of the functions that predate the table are kept.
      if (type === 'String') throw typeError('toString()', 'a string, number or boolean', v);
      if (type === 'Boolean') throw argumentError('toBoolean', 'a Boolean, String or Integer', v);
      throw typeError(`to${type.toLowerCase()}()`, 'a number or string', v);
    }),
    unary(`to${type}OrNull`, (v, ctx) => convert(v, ctx) ?? null),
    unary(`to${type}List`, (v, ctx) => {
      if (!Array.isArray(v)) throw argumentError(`to${type}List`, 'a List', v);
      const list = v as readonly Value[];
      ctx.budget.tick(list.length);
      ctx.budget.chargeBytes(list.length * LIST_SLOT_BYTES + 2);
      return list.map((item) => (item === null ? null : (convert(item, ctx) ?? null)));
    }),
  ];
}

/** Conversions between types. */
export const CONVERSION_FUNCTIONS = defineFunctions([
  ...converters('String'),
  ...converters('Integer'),
  ...converters('Float'),
  ...converters('Boolean'),
]);
