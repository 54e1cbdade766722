import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_COMPLEXITY, MAX_NESTING, checkQueryText, checkSubscriptionRules, nestingDepth, parseSubscription,
} from '../../../src/graph/carrier/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

/** TOOLGRAPH_GRAPHQL_LIST_LIMIT's default: what a nested list without first/limit is priced at. */
const LIST_LIMIT = 1000;
const rules = (query: string, variables: Record<string, unknown> | null = null) => checkSubscriptionRules(parseSubscription(query), variables, LIST_LIMIT);

describe('nestingDepth (raw text, before parsing)', () => {
  it.each([
    ['subscription { a }', 1],
    ['subscription { a(b: [1, [2]]) { c } }', 4],
    ['subscription { a(s: "{{{{[[[(((") { b } }', 2],
    ['subscription { a(s: """ {{{ \\""" {{{ """) { b } }', 2],
    ['# {{{{{{{{\nsubscription { a }', 1],
    ['subscription { a(s: "\\"{{{") }', 2],
    ['}}}} { a }', 1],
  ])('%s → %i', (text, depth) => {
    expect(nestingDepth(text)).toBe(depth);
  });

  it('matches a plain count of brackets when the text has no strings or comments', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom('{', '}', '(', ')', '[', ']', 'a', ' ')), (chars) => {
      let depth = 0;
      let max = 0;
      for (const c of chars) {
        if ('{(['.includes(c)) max = Math.max(max, ++depth);
        else if ('})]'.includes(c) && depth > 0) depth--;
      }
      expect(nestingDepth(chars.join(''))).toBe(max);
    }));
  });

  it('refuses 65 and accepts 64', () => {
    const nested = (n: number) => `${'{'.repeat(n)}${'}'.repeat(n)}`;
    expect(() => checkQueryText(nested(MAX_NESTING))).not.toThrow();
    expect(failure(() => checkQueryText(nested(MAX_NESTING + 1))).code).toBe('TG_QUERY_TOO_COMPLEX');
  });

  it('counts bytes, not characters, against 32 KiB', () => {
    expect(() => checkQueryText(`#${'é'.repeat(16383)}`)).not.toThrow();
    expect(failure(() => checkQueryText(`#${'é'.repeat(16384)}`)).message).toBe('The subscription text is 32769 bytes; the carrier accepts at most 32768 (32 KiB).');
  });
});

describe('checkSubscriptionRules', () => {
  it.each<[string, string, Record<string, unknown> | null, string]>([
    ['no first', 'subscription { Person { id } }', null, 'The subscription root field Person needs an explicit first or limit of at most 100.'],
    ['first 101', 'subscription { Person(first: 101) { id } }', null, 'needs first or limit to be an integer from 0 to 100; got 101'],
    ['limit 101 beside first 5: the smaller counts', 'subscription { Person(first: 500, limit: 101) { id } }', null, 'got 101'],
    ['negative', 'subscription { Person(first: -1) { id } }', null, 'got first: -1'],
    ['a float', 'subscription { Person(first: 1.5) { id } }', null, 'got first: 1.5'],
    ['a missing variable', 'subscription S($n: Int) { Person(first: $n) { id } }', null, 'needs an explicit first or limit'],
    ['a variable over 100', 'subscription S($n: Int) { Person(first: $n) { id } }', { n: 1000 }, 'got 1000'],
    ['a default over 100', 'subscription S($n: Int = 200) { Person(first: $n) { id } }', null, 'got 200'],
    ['first: null', 'subscription { Person(first: null) { id } }', null, 'needs an explicit first'],
    ['a second root without first', 'subscription { Person(first: 1) { id } Doc { id } }', null, 'root field Doc needs'],
    ['a root in a fragment', 'subscription { ...F } fragment F on Subscription { Person { id } }', null, 'root field Person needs'],
    ['a root in an inline fragment', 'subscription { ... on Subscription { Person { id } } }', null, 'root field Person needs'],
    ['__typename at the root', 'subscription { __typename }', null, 'must be node labels; __typename'],
    ['_entities', 'subscription { _entities(representations: []) { __typename } }', null, '_entities is not served'],
    ['__schema nested', 'subscription { Person(first: 1) { __schema { types { name } } } }', null, '__schema is not served'],
    ['too deep', `subscription { Person(first: 1) { ${'KNOWS(first: 1) { '.repeat(8)}id${' }'.repeat(8)} } }`, null, 'nests fields 9 deep'],
    ['two unbounded levels', 'subscription { Person(first: 100) { KNOWS { KNOWS { id } } } }', null, `more than ${MAX_COMPLEXITY} result values`],
    // Issue 28, F7: priced at 100 per unpaged list (30,101), it returned up to 1,000 per hub.
    ['an unpaged list, priced at the list limit it may return', 'subscription { Hub(first: 100) { LINK { id LINK_in(first: 1) { id } } } }', null, 'by the 1000 items it may return, its list limit TOOLGRAPH_GRAPHQL_LIST_LIMIT'],
    ['one unpaged level under 100 roots', 'subscription { Person(first: 100) { KNOWS { id name } } }', null, `more than ${MAX_COMPLEXITY} result values`],
    ['a fragment bomb', `subscription { Person(first: 0) { ...A } } fragment A on Person { ${'KNOWS(first: 0) { ...B } '.repeat(50)} } fragment B on Person { ${'id '.repeat(2000)} }`, null, 'result values'],
  ])('refuses %s', (_name, query, variables, message) => {
    const error = failure(() => rules(query, variables));
    expect(error.code).toBe('TG_QUERY_TOO_COMPLEX');
    expect(error.message).toContain(message);
  });

  it.each([
    ['a query operation', '{ Person(first: 1) { id } }', 'subscriptions only; got a query operation'],
    ['a mutation', 'mutation { addEdge(src: "a", tgt: "b", type: "T") { ok } }', 'got a mutation operation'],
    ['two operations', 'subscription A { Person(first: 1) { id } } subscription B { Person(first: 1) { id } }', 'exactly one operation; it holds 2'],
    ['no operation', 'fragment F on Person { id }', 'it holds 0'],
  ])('refuses %s as TG_GRAPHQL_INVALID', (_name, query, message) => {
    const error = failure(() => rules(query));
    expect(error.code).toBe('TG_GRAPHQL_INVALID');
    expect(error.message).toContain(message);
  });

  it('refuses text that does not parse', () => {
    const error = failure(() => parseSubscription('subscription { Person(first: 1) { id }'));
    expect(error.code).toBe('TG_GRAPHQL_INVALID');
    expect(error.message).toMatch(/^The subscription text does not parse: Syntax Error/);
  });

  it.each<[string, Record<string, unknown> | null, { roots: string[]; complexity: number; depth: number }]>([
    ['subscription { Person(first: 10) { id name } }', null, { roots: ['Person'], complexity: 21, depth: 2 }],
    ['subscription { a: Person(limit: 100) { id KNOWS(first: 10) { id } } b: Doc(first: 0) { id } }', null, { roots: ['Person', 'Doc'], complexity: 1 + 200 + 1000 + 1 + 1, depth: 3 }],
    ['subscription S($n: Int = 5) { Person(first: $n) { id } }', null, { roots: ['Person'], complexity: 6, depth: 2 }],
    ['subscription S($n: Int = 5) { Person(first: $n) { id } }', { n: 100 }, { roots: ['Person'], complexity: 101, depth: 2 }],
    ['subscription { Person(first: 10) { KNOWS { id name } } }', null, { roots: ['Person'], complexity: 1 + 10 + 20_000, depth: 3 }],
    ['subscription { Hub(first: 100) { LINK(first: 100) { id LINK_in(first: 1) { id } } } }', null, { roots: ['Hub'], complexity: 1 + 100 + 3 * 10_000, depth: 4 }],
    ['subscription { ...F } fragment F on Subscription { Person(first: 2) { ...G } } fragment G on Person { id ...G }', null, { roots: ['Person'], complexity: 3, depth: 2 }],
  ])('accepts %s and prices it', (query, variables, shape) => {
    expect(rules(query, variables)).toEqual(shape);
  });
});
