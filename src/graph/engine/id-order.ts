/**
 * Node ids sort in Unicode code-point order. JavaScript compares strings by UTF-16 code unit, which
 * puts astral characters (surrogate pairs, 0xD800–0xDFFF) below U+E000–U+FFFF. A sort key that moves
 * surrogates above that block makes the native `<` agree with code-point order, so hot paths keep the
 * fast native comparison; ids without such units (nearly all) are their own key.
 */
export function idSortKey(id: string): string {
  let needs = false;
  for (let i = 0; i < id.length; i++) {
    if (id.charCodeAt(i) >= 0xd800) { needs = true; break; }
  }
  if (!needs) return id;
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const u = id.charCodeAt(i);
    out += String.fromCharCode(u < 0xd800 ? u : u >= 0xe000 ? u - 0x800 : u + 0x2000);
  }
  return out;
}

/** Compares two ids in code-point order (negative, zero, positive). */
export function compareIds(a: string, b: string): number {
  const x = idSortKey(a);
  const y = idSortKey(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
