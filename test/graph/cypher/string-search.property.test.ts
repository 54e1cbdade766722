import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsText, searchTableBytes } from '../../../src/graph/cypher/runtime/string-search.ts';

// Issue 28, F3: CONTAINS searches in linear time. Its answers must be those of String.prototype.includes.
const alphabet = fc.constantFrom('a', 'b', '😀', 'é');
/** Strings over a tiny alphabet, built of long runs (what defeats a naive search) at lengths around the native/KMP switch. */
const runs = (max: number): fc.Arbitrary<string> =>
  fc.array(fc.tuple(alphabet, fc.integer({ min: 1, max: 400 })), { minLength: 0, maxLength: max }).map((parts) => parts.map(([c, n]) => c.repeat(n)).join(''));

describe('containsText', () => {
  it('answers as includes does, for needles shorter and longer than the native search handles', () => {
    fc.assert(fc.property(runs(12), runs(4), fc.nat(), (haystack, needle, at) => {
      expect(containsText(haystack, needle)).toBe(haystack.includes(needle));
      // A needle cut out of the haystack is always found.
      const start = haystack.length === 0 ? 0 : at % haystack.length;
      const inside = haystack.slice(start, start + 260 + (at % 300));
      expect(containsText(haystack, inside)).toBe(true);
    }), { numRuns: 300 });
  });

  it('finds or misses an adversarial needle in time linear in the lengths', () => {
    const haystack = 'a'.repeat(600_000);
    const needle = `${'a'.repeat(5000)}b${'a'.repeat(5000)}`;
    const started = performance.now();
    expect(containsText(haystack, needle)).toBe(false);
    expect(containsText(haystack + needle, needle)).toBe(true);
    // includes takes about 4 s for the first on this machine; the linear search a few milliseconds.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('tells the bytes of the table a long needle needs, none for a short one', () => {
    expect(searchTableBytes('x'.repeat(250))).toBe(0);
    expect(searchTableBytes('x'.repeat(251))).toBe(251 * 4);
  });
});
