import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NodeCell } from '../../../src/graph/engine/node-cell.ts';
import { SortedNodes } from '../../../src/graph/engine/sorted-nodes.ts';

/** Blocks of 4 so that a few dozen keys already split, empty and merge blocks. */
class TinyBlocks extends SortedNodes {
  protected override get blockSize(): number {
    return 4;
  }
}

const key = (i: number) => `k${String(i).padStart(3, '0')}`;
const cell = (i: number) => new NodeCell(key(i), key(i), 'L', { i });
const odd = (c: NodeCell) => (c.props.i as number) % 2 === 1;

/** The naive model: the keys present, sorted, filtered, sliced. */
function modelRange(present: Map<number, NodeCell>, after: number | undefined, before: number | undefined,
  first: number | undefined, last: number | undefined, keep?: (c: NodeCell) => boolean): string[] {
  const keys = [...present.keys()].sort((a, b) => a - b)
    .filter((i) => (after === undefined || key(i) > key(after)) && (before === undefined || key(i) < key(before)))
    .filter((i) => keep === undefined || keep(present.get(i)!))
    .map(key);
  if (first !== undefined) return keys.slice(0, first);
  if (last !== undefined) return keys.slice(Math.max(0, keys.length - last));
  return keys;
}

const op = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), i: fc.integer({ min: 0, max: 120 }) }) },
  // Runs of ascending adds take the append path that bulk loads use.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('addRun' as const), i: fc.integer({ min: 0, max: 120 }), n: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), i: fc.integer({ min: 0, max: 120 }) }) },
  { weight: 2, arbitrary: fc.record({
    kind: fc.constant('scan' as const),
    after: fc.option(fc.integer({ min: -1, max: 121 }), { nil: undefined }),
    before: fc.option(fc.integer({ min: -1, max: 121 }), { nil: undefined }),
    first: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    last: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    filtered: fc.boolean(),
  }) },
);

describe('SortedNodes against a sorted-set model', () => {
  it.each([['blocks of 4', () => new TinyBlocks()], ['default blocks', () => new SortedNodes()]] as const)(
    'behaves as a sorted set under random adds, deletes and bounded scans (%s)', (_name, make) => {
      fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 300 }), (ops) => {
        const nodes = make();
        const present = new Map<number, NodeCell>();
        for (const o of ops) {
          if (o.kind === 'add' || o.kind === 'addRun') {
            for (let i = o.i; i < o.i + (o.kind === 'add' ? 1 : o.n) && i <= 120; i++) {
              const c = present.get(i) ?? cell(i);
              nodes.add(c);
              present.set(i, c);
            }
          } else if (o.kind === 'delete') {
            const c = present.get(o.i);
            // Another cell with the same key (a re-created node) is not this one: not removed.
            expect(nodes.delete(cell(o.i))).toBe(false);
            expect(nodes.delete(c ?? cell(o.i))).toBe(c !== undefined);
            present.delete(o.i);
          } else {
            const keep = o.filtered ? odd : undefined;
            const got = nodes.range(o.after === undefined ? undefined : key(o.after), o.before === undefined ? undefined : key(o.before), o.first, o.last, keep);
            expect(got.map((c) => c.key)).toEqual(modelRange(present, o.after, o.before, o.first, o.last, keep));
          }
          expect(nodes.size).toBe(present.size);
        }
        expect(nodes.toArray().map((c) => c.key)).toEqual(modelRange(present, undefined, undefined, undefined, undefined));
        expect(nodes.count(odd)).toBe([...present.values()].filter(odd).length);
      }), { numRuns: 300 });
    });

  it('stays a sorted set through 20k shuffled deletes with full-size blocks (splits and merges)', () => {
    const id = (i: number) => `n${String(i).padStart(6, '0')}`;
    const cells = Array.from({ length: 20_000 }, (_, i) => new NodeCell(id(i), id(i), 'L', {}));
    const nodes = new SortedNodes();
    // Even ids ascending (the append path), then odd ids descending (inserts inside full blocks).
    for (let i = 0; i < cells.length; i += 2) nodes.add(cells[i]!);
    for (let i = cells.length - 1; i > 0; i -= 2) nodes.add(cells[i]!);
    expect(nodes.toArray()).toEqual(cells);
    const alive = new Set(cells);
    const order = cells.map((_, i) => (i * 7919) % cells.length);
    for (let k = 0; k < order.length; k++) {
      const c = cells[order[k]!]!;
      expect(nodes.delete(c)).toBe(true);
      alive.delete(c);
      if (k % 2500 === 0) {
        const rest = cells.filter((x) => alive.has(x));
        expect(nodes.range(undefined, undefined, 3, undefined)).toEqual(rest.slice(0, 3));
        expect(nodes.range(id(9000), id(12000), undefined, 700)).toEqual(rest.filter((x) => x.key > id(9000) && x.key < id(12000)).slice(-700));
      }
    }
    expect(nodes.size).toBe(0);
    expect(nodes.range(undefined, undefined, undefined, 5)).toEqual([]);
  });
});
