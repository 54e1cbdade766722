import { AGGREGATE_FUNCTIONS } from './functions/aggregates.ts';
import { CONVERSION_FUNCTIONS } from './functions/conversion.ts';
import type { CypherFunction } from './functions/define.ts';
import { GENERAL_FUNCTIONS } from './functions/general.ts';
import { GRAPH_FUNCTIONS } from './functions/graph.ts';
import { LIST_FUNCTIONS } from './functions/lists.ts';
import { MATH_FUNCTIONS } from './functions/math.ts';
import { PATH_FUNCTIONS } from './functions/paths.ts';
import { STRING_FUNCTIONS } from './functions/strings.ts';

export type { CallExpr, CypherFunction } from './functions/define.ts';

/**
 * The function table: every function of the subset, one entry each (name, arity, how it evaluates),
 * grouped by area in runtime/functions/. A new area is a file exporting `defineFunctions([...])`,
 * listed here. The parser refuses a name not in it; evaluate.ts calls the entry.
 */
const AREAS: readonly (readonly CypherFunction[])[] = [
  AGGREGATE_FUNCTIONS,
  GENERAL_FUNCTIONS,
  GRAPH_FUNCTIONS,
  STRING_FUNCTIONS,
  CONVERSION_FUNCTIONS,
  MATH_FUNCTIONS,
  LIST_FUNCTIONS,
  PATH_FUNCTIONS,
];

const TABLE = new Map<string, CypherFunction>();
for (const area of AREAS) {
  for (const fn of area) {
    const key = fn.name.toLowerCase();
    if (TABLE.has(key)) throw new Error(`The Cypher function ${fn.name}() is defined twice.`);
    TABLE.set(key, fn);
  }
}

/** The entry of a function by its lower-cased name (the parser lower-cases names: they are case-insensitive). */
export function functionSpec(lowerName: string): CypherFunction | undefined {
  return TABLE.get(lowerName);
}
