import { CHARS_PER_UNIT_SHIFT } from '../values.ts';
import { defineFunctions, typeError, unary } from './define.ts';

/** Conversions between types. */
export const CONVERSION_FUNCTIONS = defineFunctions([
  unary('toString', (v) => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw typeError('toString()', 'a string, number or boolean', v);
  }),
  ...(['toInteger', 'toFloat'] as const).map((name) =>
    unary(name, (v, ctx) => {
      const where = `${name.toLowerCase()}()`;
      let n: number;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'string') {
        // Parsing reads every character: told first, as any scan of a string is.
        ctx.budget.tick(v.length >>> CHARS_PER_UNIT_SHIFT);
        const text = v.trim();
        n = text === '' ? Number.NaN : Number(text);
      } else if (typeof v === 'boolean' && name === 'toInteger') n = Number(v);
      else throw typeError(where, 'a number or string', v);
      if (!Number.isFinite(n)) return null;
      if (name === 'toFloat') return n;
      const t = Math.trunc(n);
      return Number.isSafeInteger(t) ? t : null;
    }),
  ),
]);
