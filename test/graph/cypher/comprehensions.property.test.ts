import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { prepareCypher, runCypher } from '../../../src/graph/cypher/index.ts';

// Comprehensions, quantifiers and reduce over random integer lists (nulls included) agree with a JS
// reference: filter/map/every/some/reduce, with Cypher's three-valued logic for the null items.
let engine: GraphEngine;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
});

afterAll(async () => {
  await engine.close();
});

type Item = number | null;

/** `x > t` in Cypher: unknown for a null x. */
const above = (x: Item, t: number): boolean | null => (x === null ? null : x > t);

function quantifiers(list: readonly Item[], t: number): (boolean | null)[] {
  const results = list.map((x) => above(x, t));
  const trues = results.filter((r) => r === true).length;
  const unknown = results.includes(null);
  const all = results.includes(false) ? false : unknown ? null : true;
  const any = trues > 0 ? true : unknown ? null : false;
  const none = trues > 0 ? false : unknown ? null : true;
  const single = trues > 1 ? false : unknown ? null : trues === 1;
  return [all, any, none, single];
}

const STATEMENT = prepareCypher(
  'RETURN [x IN $l WHERE x > $t | x * 2] AS filtered, [x IN $l | x + 1] AS mapped, [x IN $l WHERE x > $t] AS kept, '
  + 'all(x IN $l WHERE x > $t) AS a, any(x IN $l WHERE x > $t) AS b, none(x IN $l WHERE x > $t) AS c, single(x IN $l WHERE x > $t) AS d, '
  + 'reduce(s = 0, x IN $l | s + coalesce(x, 0)) AS sum, reduce(s = 0, x IN $l | s + x) AS strict, '
  + '[xs IN [$l, $l] | size([x IN xs WHERE x > $t])] AS nested, [l IN [1] | [l IN $l WHERE l > $t | l]] AS shadowed',
);

describe('comprehensions, quantifiers and reduce against a JS reference', () => {
  it('agree on random integer lists with nulls', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.option(fc.integer({ min: -20, max: 20 }), { nil: null, freq: 5 }), { maxLength: 30 }),
      fc.integer({ min: -25, max: 25 }),
      async (l, t) => {
        const { rows } = await runCypher(engine, 'g', STATEMENT, { l, t });
        const kept = l.filter((x) => above(x, t) === true);
        const sum = l.reduce<number>((s, x) => s + (x ?? 0), 0);
        const strict = l.includes(null) ? null : sum;
        expect(rows).toEqual([[
          kept.map((x) => x! * 2),
          l.map((x) => (x === null ? null : x + 1)),
          kept,
          ...quantifiers(l, t),
          sum,
          strict,
          [kept.length, kept.length],
          [kept],
        ]]);
      },
    ), { numRuns: 300 });
  });
});
