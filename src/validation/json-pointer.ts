/** RFC 6901 JSON pointers: the one place their `~0` / `~1` escaping is written. */

/** One reference token, escaped: `~` as `~0` first, then `/` as `~1` (RFC 6901 §3). */
export function encodePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One reference token, unescaped: `~1` to `/` first, then `~0` to `~` (RFC 6901 §4), so `~01` stays `~1`. */
export function decodePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer of property `name` of the value at `parent`. */
export function childPointer(parent: string, name: string): string {
  return `${parent}/${encodePointerSegment(name)}`;
}

/** The unescaped reference tokens of a pointer (`""` has none). */
export function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(decodePointerSegment);
}

/** The value a pointer names inside `root` (own properties of objects and arrays), or undefined. */
export function valueAtPointer(root: unknown, pointer: string): unknown {
  let value = root;
  for (const key of pointerSegments(pointer)) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
