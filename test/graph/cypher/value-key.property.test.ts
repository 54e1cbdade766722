import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { equals } from '../../../src/graph/cypher/runtime/evaluate.ts';
import { EdgeRef, NodeRef, PathRef, compareValues, valueKey, type Value } from '../../../src/graph/cypher/runtime/values.ts';

// DISTINCT and grouping keep one value per key: two values share a key exactly when they are equal
// (null-free values; equality with nulls inside is unknown). Lists of scalars alone key as their JSON
// text in one JSON.stringify (issue 28: a 450,000-item key took tens of milliseconds item by item).
const scalar = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constantFrom('', 'a', '"', '\u2028', '😀', '\ud800'));
// Paths over three nodes and the edges between them, so equal paths come up often.
const nodeRef = fc.constantFrom('a', 'b', 'c').map((id) => new NodeRef({ id, label: 'L', props: {} }));
const path = fc.tuple(nodeRef, fc.array(fc.tuple(nodeRef, fc.constantFrom('T', 'U'), fc.boolean()), { maxLength: 3 })).map(([first, steps]) => {
  const nodes = [first];
  const edges: EdgeRef[] = [];
  for (const [next, type, forward] of steps) {
    const at = nodes[nodes.length - 1]!;
    edges.push(new EdgeRef(forward ? { src: at.id, tgt: next.id, type } : { src: next.id, tgt: at.id, type }));
    nodes.push(next);
  }
  return new PathRef(nodes, edges);
});
const value: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, path, fc.array(scalar, { maxLength: 6 }), fc.array(tie('value'), { maxLength: 4 })),
})).value;

describe('valueKey', () => {
  it('is equal for two values exactly when they are equal', () => {
    fc.assert(fc.property(value, value, (a, b) => {
      expect(valueKey(a) === valueKey(b)).toBe(equals(a, b) === true);
    }), { numRuns: 3000 });
  });

  it('orders paths as a total order agreeing with equality', () => {
    fc.assert(fc.property(path, path, (a, b) => {
      expect(compareValues(a, b) === 0).toBe(equals(a, b) === true);
      expect(Math.sign(compareValues(a, b))).toBe(-Math.sign(compareValues(b, a)) || 0);
      expect(compareValues(a, [a.nodes[0]!])).toBeGreaterThan(0);
      expect(compareValues(a, 's')).toBeLessThan(0);
    }));
  });

  it('keys a list of scalars as the items\' keys joined, as for any list', () => {
    fc.assert(fc.property(fc.array(scalar, { maxLength: 50 }), (list) => {
      expect(valueKey(list)).toBe(`[${list.map((v) => valueKey(v)).join(',')}]`);
    }));
  });
});
