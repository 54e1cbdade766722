import { defineFunctions, typeError, unary } from './define.ts';

/** Functions of strings. */
export const STRING_FUNCTIONS = defineFunctions([
  ...(['toLower', 'toUpper', 'trim'] as const).map((name) =>
    unary(name, (v, ctx) => {
      if (typeof v !== 'string') throw typeError(`${name.toLowerCase()}()`, 'a string', v);
      // A new string as long as the old: charged before it is made, as `+` is.
      ctx.budget.chargeBytes(v.length + 2);
      return name === 'toLower' ? v.toLowerCase() : name === 'toUpper' ? v.toUpperCase() : v.trim();
    }),
  ),
]);
