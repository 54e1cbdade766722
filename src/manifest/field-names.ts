import type { JsonValue } from './canonical-json.ts';

const MAX_FIELD_NAMES = 256;
/** The walk stops once it holds this many names. */
export const FIELD_NAME_WALK_LIMIT = MAX_FIELD_NAMES * 4;

/**
 * Property names and `$defs` type names found anywhere in the schemas, for full-text search. Sorted,
 * without duplicates, capped so one huge schema cannot swamp the index.
 */
export function fieldNamesOf(...schemas: readonly JsonValue[]): string[] {
  return walkFieldNames(new Set<string>(), [...schemas]);
}

/**
 * fieldNamesOf's walk from a given point: the names found so far and the values still to visit (the
 * last is visited first). Lets a caller that knows part of the walk's outcome start it from there.
 */
export function walkFieldNames(names: Set<string>, stack: JsonValue[]): string[] {
  while (stack.length > 0 && names.size < FIELD_NAME_WALK_LIMIT) {
    const value = stack.pop()!;
    if (Array.isArray(value)) {
      stack.push(...value);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if ((key === 'properties' || key === '$defs') && child !== null && typeof child === 'object' && !Array.isArray(child)) {
          for (const name of Object.keys(child)) names.add(name);
        }
        if (child !== null && typeof child === 'object') stack.push(child);
      }
    }
  }
  return [...names].sort().slice(0, MAX_FIELD_NAMES);
}
