import { CHARS_PER_UNIT_SHIFT, type Value } from '../values.ts';
import { codePoints, defineFunctions, typeError, unary } from './define.ts';

/** Functions of lists (and size() of strings). */
export const LIST_FUNCTIONS = defineFunctions([
  unary('size', (v, ctx) => {
    if (typeof v === 'string') {
      // Counted code point by code point: as long as the string.
      if (v.length >>> CHARS_PER_UNIT_SHIFT > 0) ctx.budget.tick(v.length >>> CHARS_PER_UNIT_SHIFT);
      return codePoints(v);
    }
    if (Array.isArray(v)) return v.length;
    throw typeError('size()', 'a string or list', v);
  }),
  ...(['head', 'last'] as const).map((name) =>
    unary(name, (v) => {
      if (!Array.isArray(v)) throw typeError(`${name}()`, 'a list', v);
      const list = v as readonly Value[];
      return (name === 'head' ? list[0] : list[list.length - 1]) ?? null;
    }),
  ),
]);
