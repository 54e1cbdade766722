/** Rewrites a JSON value with object keys in sorted order, so serialisation never depends on insertion order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** Pretty JSON with sorted keys and a final newline: the form of every committed generated JSON file. */
export function stableJsonText(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}
