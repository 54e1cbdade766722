import { defineFunctions } from './define.ts';

/** Functions of any values. */
export const GENERAL_FUNCTIONS = defineFunctions([
  {
    name: 'coalesce',
    minArgs: 1,
    maxArgs: 255,
    lazy: true,
    // The first non-null argument; the ones after it are not evaluated.
    evaluate: (arg, _ctx, call) => {
      for (let i = 0; i < call.args.length; i++) {
        const v = arg(i);
        if (v !== null) return v;
      }
      return null;
    },
  },
]);
