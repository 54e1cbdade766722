import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareIds, idSortKey } from '../../../src/graph/engine/index.ts';

function byCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

describe('id order', () => {
  it('puts astral characters after U+E000–U+FFFF, unlike UTF-16 comparison', () => {
    const astral = '\u{1F600}';
    const bmpHigh = '\uFF21';
    expect(astral < bmpHigh).toBe(true); // what JavaScript does
    expect(compareIds(astral, bmpHigh)).toBeGreaterThan(0);
    expect(['b', astral, 'a', bmpHigh, 'ab'].sort(compareIds)).toEqual(['a', 'ab', 'b', bmpHigh, astral]);
  });

  it('keeps ASCII ids as their own key', () => {
    const id = 'person-42';
    expect(idSortKey(id)).toBe(id);
  });

  it('agrees with code-point order on arbitrary well-formed strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      expect(Math.sign(compareIds(a, b))).toBe(Math.sign(byCodePoints(a, b)));
    }), { numRuns: 500 });
  });
});
