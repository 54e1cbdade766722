import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Operand, Predicate } from '../../../src/graph/access/index.ts';
import { FALSE, TRUE, UNKNOWN, compilePredicate } from '../../../src/graph/access/row-predicate.ts';
import type { NodeRecord } from '../../../src/graph/engine/index.ts';
import { predicateOver } from './predicate-arbitrary.ts';

const claims: Record<string, unknown> = { groups: ['red', 'green'], sub: 'alice', level: 3, org: 'acme' };
const claim = (name: string) => {
  const v = claims[name];
  return v as string | number | boolean | readonly string[] | undefined;
};
const node = (props: Record<string, unknown>, id = 'n1'): NodeRecord => ({ id, label: 'Doc', props: props as NodeRecord['props'] });
const run = (p: Predicate, n: NodeRecord) => {
  const c = compilePredicate(p, claim);
  return 'constant' in c ? c.constant : c.test(n);
};

describe('the predicate language (three-valued: a missing value is unknown, never an error)', () => {
  it('in: a row scalar in a claim list, a claim in a row list, a scalar counting as a list of one', () => {
    const teamInGroups: Predicate = { in: [{ row: 'team' }, { claim: 'groups' }] };
    expect(run(teamInGroups, node({ team: 'red' }))).toBe(TRUE);
    expect(run(teamInGroups, node({ team: 'blue' }))).toBe(FALSE);
    expect(run(teamInGroups, node({}))).toBe(UNKNOWN);
    expect(run({ in: [{ claim: 'sub' }, { row: 'owners' }] }, node({ owners: ['bob', 'alice'] }))).toBe(TRUE);
    expect(run({ in: [{ claim: 'sub' }, { row: 'owners' }] }, node({ owners: 'alice' }))).toBe(TRUE);
    expect(run({ in: [{ row: 'team' }, { claim: 'org' }] }, node({ team: 'acme' }))).toBe(TRUE);
    expect(run({ in: [{ row: 'team' }, { claim: 'nope' }] }, node({ team: 'acme' }))).toBe(UNKNOWN);
  });

  it('eq compares present scalars by type and value; lists and missing values are unknown', () => {
    expect(run({ eq: [{ row: 'level' }, { claim: 'level' }] }, node({ level: 3 }))).toBe(TRUE);
    expect(run({ eq: [{ row: 'level' }, { claim: 'level' }] }, node({ level: '3' }))).toBe(FALSE);
    expect(run({ eq: [{ row: 'tags' }, { value: 'a' }] }, node({ tags: ['a'] }))).toBe(UNKNOWN);
    expect(run({ eq: [{ row: 'id' }, { value: 'n7' }] }, node({}, 'n7'))).toBe(TRUE);
    expect(run({ eq: [{ row: 'a' }, { row: 'b' }] }, node({ a: 1, b: 1 }))).toBe(TRUE);
  });

  it('not of unknown stays unknown, so negating a missing property never reveals a row', () => {
    const notDraft: Predicate = { not: { eq: [{ row: 'status' }, { value: 'draft' }] } };
    expect(run(notDraft, node({ status: 'final' }))).toBe(TRUE);
    expect(run(notDraft, node({ status: 'draft' }))).toBe(FALSE);
    expect(run(notDraft, node({}))).toBe(UNKNOWN);
  });

  it('and/or follow Kleene: false wins and, true wins or', () => {
    const missing: Predicate = { eq: [{ row: 'x' }, { value: 1 }] };
    expect(run({ and: [missing, false] }, node({}))).toBe(FALSE);
    expect(run({ and: [missing, true] }, node({}))).toBe(UNKNOWN);
    expect(run({ or: [missing, true] }, node({}))).toBe(TRUE);
    expect(run({ or: [missing, false] }, node({}))).toBe(UNKNOWN);
  });

  it('a property named like an Object.prototype member is missing, not a function', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(run({ eq: [{ row: name }, { value: 'x' }] }, node({}))).toBe(UNKNOWN);
      expect(run({ in: [{ claim: 'sub' }, { row: name }] }, node({}))).toBe(UNKNOWN);
    }
  });

  it('folds what does not read the row into a constant (compiled once, not per row)', () => {
    expect(compilePredicate({ in: [{ value: 'red' }, { claim: 'groups' }] }, claim)).toEqual({ constant: TRUE });
    expect(compilePredicate({ and: [{ eq: [{ claim: 'sub' }, { value: 'bob' }] }, { eq: [{ row: 'a' }, { value: 1 }] }] }, claim)).toEqual({ constant: FALSE });
    expect(compilePredicate({ not: { eq: [{ claim: 'missing' }, { value: 1 }] } }, claim)).toEqual({ constant: UNKNOWN });
  });
});

describe('holds (the filter\'s question) agrees with test === TRUE', () => {
  const operand = fc.oneof(
    fc.constantFrom({ row: 'a' }, { row: 'b' }, { row: 'id' }, { row: 'constructor' }, { claim: 'groups' }, { claim: 'level' }, { claim: 'nope' }),
    fc.oneof(fc.constantFrom('red', 'x', 3, true), fc.constant(['red', 3])).map((value) => ({ value })),
  ) as fc.Arbitrary<Operand>;
  const predicate = predicateOver(operand);
  const value = fc.option(fc.oneof(fc.constantFrom('red', 'x', 3, true, 'n1'), fc.constant(['red', 'x'])), { nil: undefined });

  it('for random predicates and rows', () => {
    fc.assert(fc.property(predicate, value, value, (p, a, b) => {
      const compiled = compilePredicate(p, claim);
      if ('constant' in compiled) return;
      const n = node({ ...(a === undefined ? {} : { a }), ...(b === undefined ? {} : { b }) });
      expect(compiled.holds(n)).toBe(compiled.test(n) === TRUE);
    }), { numRuns: 3000 });
  });
});
