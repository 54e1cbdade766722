import { runtimeError } from '../../language/cypher-error.ts';
import { LIST_SLOT_BYTES } from '../value-size.ts';
import { CHARS_PER_UNIT_SHIFT, type Value } from '../values.ts';
import { argumentError, codePoints, defineFunctions, nullIn, typeError, unary } from './define.ts';

/** An integer argument of range(). */
function rangeArg(v: Value, which: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw argumentError('range', 'an Integer', v, which);
  return v;
}

/** Functions of lists (and size() and reverse() of strings). */
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
  unary('tail', (v, ctx) => {
    if (!Array.isArray(v)) throw argumentError('tail', 'a List', v);
    const list = v as readonly Value[];
    if (list.length <= 1) return [];
    // A copy of all but the first slot (the items are shared): charged before it is made.
    ctx.budget.chargeBytes((list.length - 1) * LIST_SLOT_BYTES + 2);
    return list.slice(1);
  }),
  unary('reverse', (v, ctx) => {
    if (typeof v === 'string') {
      // By code point: a surrogate pair stays a pair.
      ctx.budget.tick(v.length >>> CHARS_PER_UNIT_SHIFT);
      ctx.budget.chargeBytes(v.length * 2 + 2);
      return Array.from(v).reverse().join('');
    }
    if (Array.isArray(v)) {
      const list = v as readonly Value[];
      ctx.budget.chargeBytes(list.length * LIST_SLOT_BYTES + 2);
      return list.slice().reverse();
    }
    throw argumentError('reverse', 'a String or a List', v);
  }),
  nullIn('range', 2, 3, (args, ctx) => {
      const start = rangeArg(args[0]!, 'start');
      const end = rangeArg(args[1]!, 'end');
      const step = args.length > 2 ? rangeArg(args[2]!, 'step') : 1;
      if (step === 0) throw runtimeError('range() expects a step other than 0, got Integer 0.', { function: 'range' });
      const count = (step > 0 ? end >= start : end <= start) ? Math.floor((end - start) / step) + 1 : 0;
      // The whole list is charged before a slot of it exists: range(0, 1e9) is refused at once.
      ctx.budget.chargeBytes(count * LIST_SLOT_BYTES + 2);
      ctx.budget.tick(count);
      const out = new Array<number>(count);
      for (let i = 0; i < count; i++) out[i] = start + i * step;
      return out;
  }),
]);
