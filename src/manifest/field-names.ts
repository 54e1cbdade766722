import type { JsonValue } from './canonical-json.ts';

const MAX_FIELD_NAMES = 256;

/**
 * Property names and `$defs` type names found anywhere in the schemas, for full-text search. Sorted,
 * without duplicates, capped so one huge schema cannot swamp the index.
 */
export function fieldNamesOf(...schemas: readonly JsonValue[]): string[] {
  const names = new Set<string>();
  const stack: JsonValue[] = [...schemas];
  while (stack.length > 0 && names.size < MAX_FIELD_NAMES * 4) {
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
