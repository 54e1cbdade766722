import { defineFunctions, typeError, unary } from './define.ts';

/** Numeric functions. */
export const MATH_FUNCTIONS = defineFunctions([
  unary('abs', (v) => {
    if (typeof v !== 'number') throw typeError('abs()', 'a number', v);
    return Math.abs(v);
  }),
]);
