import { defineFunctions, type AggregateFunction } from './define.ts';

const aggregate = (name: string, minArgs = 1, maxArgs = minArgs): AggregateFunction => ({ name, minArgs, maxArgs, aggregate: true });

/** Aggregating functions: their entries give arity; runtime/aggregate.ts accumulates them over a group's rows. */
export const AGGREGATE_FUNCTIONS = defineFunctions([
  aggregate('count'),
  aggregate('collect'),
  aggregate('sum'),
  aggregate('avg'),
  aggregate('min'),
  aggregate('max'),
  aggregate('stDev'),
  aggregate('stDevP'),
  aggregate('percentileCont', 2),
  aggregate('percentileDisc', 2),
]);
