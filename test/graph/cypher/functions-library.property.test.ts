import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCypher } from '../../../src/graph/cypher/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';

// Issue 24, item 4: the string functions against naive references, on strings of few distinct
// characters (so needles occur often) including a surrogate pair, and range()'s length.
let engine: GraphEngine;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
});

afterAll(async () => {
  await engine.close();
});

const text = (max: number) => fc.array(fc.constantFrom('a', 'b', '😀', 'é'), { maxLength: max }).map((cs) => cs.join(''));

describe('string functions against references', () => {
  it('substring, left, right, split and replace', async () => {
    await fc.assert(
      fc.asyncProperty(text(30), text(3), text(3), fc.nat(35), fc.nat(35), async (s, d, r, a, b) => {
        const result = await runCypher(engine, 'g', 'RETURN substring($s, $a, $b), substring($s, $a), left($s, $a), right($s, $a), split($s, $d), replace($s, $d, $r), reverse($s)', { s, d, r, a, b });
        const cps = Array.from(s);
        const want = [
          cps.slice(a, a + b).join(''),
          cps.slice(a).join(''),
          cps.slice(0, a).join(''),
          cps.slice(Math.max(0, cps.length - a)).join(''),
          d === '' ? cps : s.split(d),
          d === '' ? r + cps.map((c) => c + r).join('') : s.split(d).join(r),
          [...cps].reverse().join(''),
        ];
        expect(result.rows[0]).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('range() has the length of the naive loop', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -50, max: 50 }), fc.integer({ min: -7, max: 7 }).filter((x) => x !== 0), async (start, end, step) => {
        const want: number[] = [];
        for (let i = start; step > 0 ? i <= end : i >= end; i += step) want.push(i);
        const result = await runCypher(engine, 'g', 'RETURN range($start, $end, $step)', { start, end, step });
        expect(result.rows[0]![0]).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});
