/**
 * Substring search in time linear in the lengths, whatever the inputs. V8's `String.prototype.includes`
 * is fast, but for a needle longer than its Boyer-Moore tables (250 code units) its worst case grows
 * with the product of the lengths: `'a' × 600,000` searched for `'a' × 5,000 + 'b' + 'a' × 5,000` takes
 * about 4 s in one call, which no budget can interrupt. Short needles keep the native search (linear
 * for them); long ones take Knuth–Morris–Pratt, whose table holds one 32-bit entry per needle unit.
 */

/** The longest needle V8's native search handles in linear time (its Boyer-Moore tables' reach). */
const NATIVE_NEEDLE_MAX = 250;

/** Bytes of the table a search for `needle` allocates (none for the native search): for the caller to charge first. */
export function searchTableBytes(needle: string): number {
  return needle.length > NATIVE_NEEDLE_MAX ? needle.length * 4 : 0;
}

/** Whether `haystack` contains `needle` (UTF-16 code units, as `includes` compares). */
export function containsText(haystack: string, needle: string): boolean {
  if (needle.length <= NATIVE_NEEDLE_MAX || needle.length > haystack.length) return haystack.includes(needle);
  return indexOfLinear(haystack, needle) !== -1;
}

/** fail[i]: the length of the longest proper prefix of needle[0..i] that is also its suffix (KMP's table). */
function failureTable(needle: string): Int32Array {
  const m = needle.length;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    const c = needle.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = fail[k - 1]!;
    if (needle.charCodeAt(k) === c) k++;
    fail[i] = k;
  }
  return fail;
}

/** Knuth–Morris–Pratt: at most 2·(n + m) comparisons. */
function indexOfLinear(haystack: string, needle: string): number {
  const m = needle.length;
  const fail = failureTable(needle);
  for (let i = 0, k = 0; i < haystack.length; i++) {
    const c = haystack.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = fail[k - 1]!;
    if (needle.charCodeAt(k) === c) k++;
    if (k === m) return i - m + 1;
  }
  return -1;
}

/**
 * Calls `visit` with the start of every non-overlapping occurrence of a non-empty `needle` in
 * `haystack`, left to right (as `replace` and `split` find them), in time linear in the lengths:
 * short needles by the native search from each position (linear for them), long ones by
 * Knuth–Morris–Pratt (the caller charges `searchTableBytes(needle)` first).
 */
export function forEachOccurrence(haystack: string, needle: string, visit: (at: number) => void): void {
  const m = needle.length;
  if (m === 0 || m > haystack.length) return;
  if (m <= NATIVE_NEEDLE_MAX) {
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + m)) {
      visit(at);
    }
    return;
  }
  const fail = failureTable(needle);
  for (let i = 0, k = 0; i < haystack.length; i++) {
    const c = haystack.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = fail[k - 1]!;
    if (needle.charCodeAt(k) === c) k++;
    if (k === m) {
      visit(i - m + 1);
      // Non-overlapping: the next occurrence starts after this one.
      k = 0;
    }
  }
}
