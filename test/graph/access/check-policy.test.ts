import { describe, expect, it } from 'vitest';
import { MAX_POLICY_DEPTH, checkAccessPolicy } from '../../../src/graph/access/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

const GOOD = {
  version: 1,
  read: [{ group: 'eng' }, { subject: 'alice' }, { scope: 'kg:read' }, { anyone: true }],
  write: [],
  rows: {
    Document: { and: [{ in: [{ row: 'team' }, { claim: 'groups' }] }, { not: { eq: [{ row: 'status' }, { value: 'draft' }] } }] },
    Person: true,
    '*': { or: [false, { eq: [{ row: 'owner' }, { claim: 'sub' }] }] },
  },
};

function refusal(value: unknown): { pointer: unknown; message: string; code: string } {
  const error = failure(() => checkAccessPolicy(value));
  return { pointer: error.details?.['pointer'], message: error.message, code: error.code };
}

describe('checkAccessPolicy (the generated validator of specs/access-policy.schema.json)', () => {
  it('accepts a policy using every matcher and predicate form', () => {
    expect(checkAccessPolicy(GOOD)).toBe(GOOD);
  });

  it.each([
    ['a missing rows', { version: 1, read: [], write: [] }, '/rows'],
    ['an unknown top-level key', { ...GOOD, extra: 1 }, '/extra'],
    ['version 2', { ...GOOD, version: 2 }, '/version'],
    ['a matcher with two keys', { ...GOOD, read: [{ group: 'a', subject: 'b' }] }, '/read/0'],
    ['an empty group', { ...GOOD, write: [{ group: '' }] }, '/write/0/group'],
    ['anyone: false', { ...GOOD, read: [{ anyone: false }] }, '/read/0/anyone'],
    ['a label that is no GraphQL name', { ...GOOD, rows: { 'Bad-Label': true } }, '/rows'],
    ['an unknown operator', { ...GOOD, rows: { Person: { like: [{ row: 'a' }, { value: 'b' }] } } }, '/rows/Person/like'],
    ['eq with one operand', { ...GOOD, rows: { Person: { eq: [{ row: 'a' }] } } }, '/rows/Person/eq'],
    ['a nested bad operand', { ...GOOD, rows: { Person: { and: [true, { not: { eq: [{ row: 'a' }, { column: 'b' }] } }] } } }, '/rows/Person/and/1/not/eq/1/column'],
    ['an empty and', { ...GOOD, rows: { Person: { and: [] } } }, '/rows/Person/and'],
    ['a literal object', { ...GOOD, rows: { Person: { eq: [{ row: 'a' }, { value: { x: 1 } }] } } }, '/rows/Person/eq/1/value'],
  ])('refuses %s with TG_ACCESS_POLICY_INVALID naming the JSON pointer', (_name, value, pointer) => {
    const { code, message, pointer: got } = refusal(value);
    expect(code).toBe('TG_ACCESS_POLICY_INVALID');
    expect(got).toBe(pointer);
    expect(message).toContain(`at ${pointer}`);
  });

  it('refuses a document nested deeper than the limit before validating it (no stack exhaustion)', () => {
    let predicate: unknown = true;
    for (let i = 0; i < 100_000; i++) predicate = { not: predicate };
    const { code, pointer } = refusal({ ...GOOD, rows: { Person: predicate } });
    expect(code).toBe('TG_ACCESS_POLICY_INVALID');
    expect(String(pointer).split('/').length - 1).toBe(MAX_POLICY_DEPTH);
  });
});
