import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QueryBudget } from '../../../src/graph/budget/index.ts';
import type { NodeRecord, PropertyValue } from '../../../src/graph/engine/index.ts';
import { ResultJson, canonicalValue } from '../../../src/graph/cypher/runtime/result-json.ts';
import { EdgeRef, NodeRef, PathRef, newMap, toJson, type Value } from '../../../src/graph/cypher/runtime/values.ts';

/** Any UTF-16 code unit, lone surrogates included: the writer must agree with canonicalize on those too. */
const unit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const text = fc.oneof(fc.string(), fc.string({ unit }), fc.string({ unit: 'binary' }), fc.constantFrom('id', 'ia', 'idx', 'i', '', 'é', '\uFFFF', '😀'));
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(-0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, 0.1 + 0.2));
const scalar = fc.oneof(text, number, fc.boolean());
/** A stored property value: a scalar or a homogeneous list (the engine's rules). */
const property: fc.Arbitrary<PropertyValue> = fc.oneof(scalar, fc.array(text), fc.array(number), fc.array(fc.boolean()));
/** Property keys as the engine stores them: never `__`-prefixed; `id` may appear and is the node id's place. */
const key = text.filter((k) => !k.startsWith('__'));

/** A node record; half of them with keys unsorted (as a statement's own pending writes hold them). */
const record: fc.Arbitrary<NodeRecord> = fc.record({
  id: text,
  label: fc.constant('L'),
  entries: fc.array(fc.tuple(key, property), { maxLength: 6 }),
  sorted: fc.boolean(),
}).map(({ id, label, entries, sorted }) => {
  const props: Record<string, PropertyValue> = {};
  const list = sorted ? [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : entries;
  for (const [k, v] of list) props[k] = v;
  return { id, label, props };
});

const value: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    scalar,
    record.map((r) => new NodeRef(r)),
    fc.record({ src: text, tgt: text, type: text }).map((e) => new EdgeRef(e)),
    fc.array(fc.tuple(record, fc.record({ src: text, tgt: text, type: text })), { maxLength: 3 }).chain((steps) =>
      record.map((first) => new PathRef([first, ...steps.map(([n]) => n)].map((n) => new NodeRef(n)), steps.map(([, e]) => new EdgeRef(e))))),
    fc.array(tie('value'), { maxLength: 5 }),
    // Maps are null-prototype objects, so any key (`__proto__` included) is an ordinary key.
    fc.array(fc.tuple(fc.oneof(text, fc.constant('__proto__')), tie('value')), { maxLength: 5 }).map((entries) => {
      const map = newMap();
      for (const [k, v] of entries) map[k] = v;
      return map;
    }),
  ),
})).value;

/** Some nodes resolve to nothing (deleted by the statement): both sides must write null. */
const resolve = (ref: NodeRef): NodeRecord | null => (ref.id.length % 3 === 2 ? null : ref.record);

function outcome(write: () => string): { text: string } | { threw: true } {
  try {
    return { text: write() };
  } catch {
    return { threw: true };
  }
}

describe('canonicalValue', () => {
  it('writes exactly what canonicalize writes for the JSON form of every runtime value (and refuses what it refuses)', () => {
    fc.assert(fc.property(value, (v) => {
      const mine = outcome(() => canonicalValue(v, resolve));
      const reference = outcome(() => canonicalize(toJson(v, resolve)) ?? 'undefined');
      expect(mine).toEqual(reference);
    }), { numRuns: 3000 });
  });

  it('writes long lists of scalars (written in runs, issue 28) exactly as canonicalize does', () => {
    // Runs of 0 to 5,000 plain scalars between other items: short runs, runs past 4,096, a list that starts or ends with one.
    const plain = fc.oneof(number, fc.boolean(), fc.constant(null));
    const run = fc.oneof(fc.array(plain, { maxLength: 20 }), fc.array(plain, { minLength: 4090, maxLength: 5000 }));
    const list = fc.array(fc.tuple(run, fc.option(fc.oneof(text, fc.array(plain, { maxLength: 3 })), { nil: undefined })), { maxLength: 4 })
      .map((parts) => parts.flatMap(([items, other]) => (other === undefined ? items : [...items, other])) as Value);
    fc.assert(fc.property(list, (v) => {
      expect(outcome(() => canonicalValue(v, resolve))).toEqual(outcome(() => canonicalize(toJson(v, resolve)) ?? 'undefined'));
    }), { numRuns: 200 });
  });

  it.each<[string, Value, string]>([
    ['negative zero', -0, '0'],
    ['a long list of scalars (one run) with -0', Array.from({ length: 40 }, (_, i) => (i === 20 ? -0 : i)), `[${Array.from({ length: 40 }, (_, i) => (i === 20 ? 0 : i)).join(',')}]`],
    ['shortest round-trip numbers', [1e21, 1e-7, 0.1 + 0.2, 100], '[1e+21,1e-7,0.30000000000000004,100]'],
    ['a node: properties plus id, in code-unit order', new NodeRef({ id: 'n01', label: 'L', props: { b: 1, a: 'x', j: true } }), '{"a":"x","b":1,"id":"n01","j":true}'],
    ['a relationship', new EdgeRef({ src: 'a', tgt: 'b', type: 'T' }), '{"src":"a","tgt":"b","type":"T"}'],
    ['a path: its nodes and relationships alternating', new PathRef([new NodeRef({ id: 'a', label: 'L', props: {} }), new NodeRef({ id: 'b', label: 'L', props: {} })], [new EdgeRef({ src: 'b', tgt: 'a', type: 'T' })]),
      '[{"id":"a"},{"src":"b","tgt":"a","type":"T"},{"id":"b"}]'],
    ['keys in UTF-16 order (astral before U+FFFF)', Object.assign(newMap(), { '\uFFFF': 1, '😀': 2 }), '{"😀":2,"\uFFFF":1}'],
  ])('%s', (_name, v, want) => {
    expect(canonicalValue(v, resolve)).toBe(want);
  });

  it('refuses a lone surrogate with TG_VALUE_INVALID', () => {
    expect(() => canonicalValue('\uD800', resolve)).toThrow(expect.objectContaining({ code: 'TG_VALUE_INVALID' }));
  });
});

describe('ResultJson', () => {
  it('writes the whole result as canonicalize would', () => {
    fc.assert(fc.property(fc.array(fc.array(value, { minLength: 2, maxLength: 2 }), { maxLength: 4 }), fc.nat(), fc.boolean(), (rows, version, withStats) => {
      const stats = { nodesCreated: 1, nodesDeleted: 2, relationshipsCreated: 3, relationshipsDeleted: 4, propertiesSet: 5 };
      const mine = outcome(() => {
        const out = new ResultJson(resolve, new QueryBudget());
        for (const row of rows) out.push(row);
        return out.finish(['a', 'b'], version, withStats ? stats : undefined);
      });
      const reference = outcome(() => canonicalize({ columns: ['a', 'b'], rows: rows.map((r) => r.map((v) => toJson(v, resolve))), version, ...(withStats ? { stats } : {}) })!);
      expect(mine).toEqual(reference);
    }), { numRuns: 500 });
  });

  it('refuses a result over the result-size budget as rows arrive', () => {
    const out = new ResultJson(resolve, new QueryBudget({ maxRows: 10, maxResultBytes: 1024, timeoutMs: 1000, maxStallMs: 1000 }));
    expect(() => {
      for (let i = 0; i < 100; i++) out.push(['x'.repeat(100)]);
    }).toThrow(expect.objectContaining({ code: 'TG_QUERY_BUDGET_EXCEEDED', details: expect.objectContaining({ limit: 'maxResultBytes' }) }));
  });

  it('refuses a row while writing it, before the text past the budget exists (issue 15, C2)', () => {
    // 10,000 references to one node with a 100 KB property: 1 GB of JSON, while the budget is 1 MiB.
    const node: NodeRecord = { id: 'big', label: 'L', props: { body: 'x'.repeat(100_000) } };
    let resolved = 0;
    const counting = (ref: NodeRef): NodeRecord | null => {
      resolved++;
      return ref.record;
    };
    const budget = new QueryBudget({ maxRows: 10, maxResultBytes: 1024 * 1024, timeoutMs: 60_000, maxStallMs: 60_000 });
    const out = new ResultJson(counting, budget);
    expect(() => out.push([Array.from({ length: 10_000 }, () => new NodeRef(node))])).toThrow(expect.objectContaining({
      code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxResultBytes', max: 1024 * 1024, setting: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES' },
    }));
    // Stopped at the item that did not fit, not after writing all of them.
    expect(resolved).toBeLessThanOrEqual(11);
  });

  it('charges each row it writes to the budget', () => {
    const budget = new QueryBudget();
    const out = new ResultJson(resolve, budget);
    out.push(['abc', 1]);
    out.push([null]);
    expect(budget.bytes).toBe('["abc",1]'.length + ',[null]'.length);
  });
});
