import { beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ToolgraphError } from '../../../src/errors/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { runCypher, type CypherResult } from '../../../src/graph/cypher/index.ts';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../../../src/graph/budget/budget-limits.ts';
import { compileRegex, regexMatches } from '../../../src/graph/cypher/runtime/regex-vm.ts';
import { failure } from '../../support/toolgraph-failure.ts';

/** A meter that only counts. */
function counter(): { units: number; tick(n: number): void } {
  return { units: 0, tick(n: number) { this.units += n; } };
}

function matches(text: string, pattern: string): boolean {
  return regexMatches(text, pattern, counter());
}

function thrown(work: () => unknown): ToolgraphError {
  try {
    work();
  } catch (error) {
    if (error instanceof ToolgraphError) return error;
    throw error;
  }
  throw new Error('expected a ToolgraphError');
}

describe('the regex engine (Java dialect, whole-string match)', () => {
  it.each<[string, string, boolean]>([
    ['abc', 'abc', true],
    ['abc', 'ab', false],
    ['abc', 'a.c', true],
    ['a\nc', 'a.c', false],
    ['a\nc', '(?s)a.c', true],
    ['Alice', 'A.*', true],
    ['alice', 'A.*', false],
    ['alice', '(?i)A.*', true],
    ['ALICE', '(?i)alice', true],
    ['x12_', '\\w+', true],
    ['x-1', '\\w+', false],
    ['2024-01-05', '\\d{4}-\\d{2}-\\d{2}', true],
    ['2024-1-05', '\\d{4}-\\d{2}-\\d{2}', false],
    ['a.b', 'a\\.b', true],
    ['axb', 'a\\.b', false],
    ['a+b*', '\\Qa+b*\\E', true],
    ['aaa', 'a{2,3}', true],
    ['aaaa', 'a{2,3}', false],
    ['aaaa', 'a{2,}', true],
    ['a', 'a{2,}', false],
    ['ab', '(?<first>a)(?:b)', true],
    ['b', 'a|b|c', true],
    ['', 'a*', true],
    ['', '', true],
    ['q', '[^a-z]', false],
    ['Q', '[^a-z]', true],
    ['Q', '(?i)[^a-z]', false],
    ['_', '[\\d_]', true],
    [']', '[]a]', true],
    ['-', '[a-]', true],
    ['b', '[a[bc]]', true],
    ['😀', '.', true],
    ['😀', '..', false],
    ['😀x', '[😀]x', true],
    ['A', '\\u0041', true],
    ['A', '\\x41', true],
    ['a b', 'a\\sb', true],
    ['foo bar', 'foo\\b.*', true],
    ['foobar', 'foo\\b.*', false],
    ['ab\n', 'ab$\n', true],
    ['ab\ncd', '(?m)ab$\n^cd', true],
    ['ab\ncd', 'ab$\n^cd', false],
    ['a b', '(?x) a \\  b # comment', true],
    ['aB', 'a(?i:b)', true],
    ['AB', 'a(?i:b)', false],
    ['aaa', 'a+?', true],
    ['aaab', '(a+)+b', true],
  ])('%j =~ %j is %s', (text, pattern, expected) => {
    expect(matches(text, pattern)).toBe(expected);
  });

  it.each<[string, string]>([
    ['(a)\\1', 'a backreference \\1'],
    ['(?<n>a)\\k<n>', 'a named backreference \\k<name>'],
    ['a(?=b)', 'a lookahead (?=…)'],
    ['a(?!b)', 'a negative lookahead (?!…)'],
    ['(?<=a)b', 'a lookbehind (?<=…)'],
    ['(?>a)', 'an atomic group (?>…)'],
    ['a*+', 'a possessive quantifier'],
    ['\\p{L}', 'the Unicode property class \\p{…}'],
    ['[a&&b]', 'a class intersection &&'],
  ])('refuses %j by name', (pattern, construct) => {
    const error = thrown(() => matches('a', pattern));
    expect(error.code).toBe('TG_CYPHER_UNSUPPORTED');
    expect(error.details).toMatchObject({ construct });
  });

  it.each<[string, number, string]>([
    ['a(', 2, 'Unclosed group'],
    ['a)', 1, "Unmatched closing ')'"],
    ['*a', 0, "Dangling meta character '*'"],
    ['[ab', 0, 'Unclosed character class'],
    ['a{2', 1, 'Illegal repetition'],
    ['[z-a]', 3, 'Illegal character range'],
    ['\\y', 0, "Illegal/unsupported escape sequence '\\y'"],
  ])('an invalid pattern %j is a runtime error at index %d', (pattern, index, problem) => {
    const error = thrown(() => matches('a', pattern));
    expect(error.code).toBe('TG_CYPHER_RUNTIME');
    expect(error.message).toContain(`Invalid regular expression`);
    expect(error.details).toMatchObject({ index, problem });
  });

  it('caps the compiled program, naming the cap', () => {
    const error = thrown(() => matches('a', '(?:abcdefghij){2000}'));
    expect(error.code).toBe('TG_CYPHER_RUNTIME');
    expect(error.message).toContain('10000');
    expect(error.details).toMatchObject({ limit: 10_000 });
    expect(thrown(() => matches('a', 'a{100000}')).details).toMatchObject({ limit: 10_000 });
  });

  it.each(['(a+)+b', '(a|a)*b', '(a*)*$', '(x+x+)+y', '(a|aa)+c', '(.*a){20}z'])('runs the pathological %j in linear time over 100 kB', (pattern) => {
    const text = (pattern.includes('x') ? 'x' : 'a').repeat(100_000);
    const meter = counter();
    const program = compileRegex(pattern, meter);
    const result = program.matches(text, meter);
    expect(result).toBe(pattern === '(a*)*$');
    // Every state is visited at most once per position, and the budget was told of that work.
    expect(program.lastSteps).toBeLessThanOrEqual(2 * program.size * (text.length + 1));
    expect(meter.units * 16).toBeGreaterThanOrEqual(program.lastSteps / 2);
    expect(meter.units).toBeLessThan(program.size * (text.length + 1));
  });

  // The safe common subset, where Java's and JavaScript's (with the u and s flags) semantics agree.
  const atom = fc.oneof(
    fc.constantFrom('a', 'b', 'c', '.', '\\d', '\\w', '\\s', '[ab]', '[^a]', '[a-c]', '\\.', '1', ' ', '\\n', '[\\d_]'),
  );
  const regex: fc.Arbitrary<string> = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true },
      atom,
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => `${a}${b}`),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => `(?:${a}|${b})`),
      fc.tuple(tie('node'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '{0,}', '*?', '+?')).map(([a, q]) => `(?:${a})${q}`),
      tie('node').map((a) => `(${a})`),
    ),
  })).node as fc.Arbitrary<string>;
  const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', '_', ' ', '.', '\n', 'x'), maxLength: 12 });

  it('agrees with JavaScript RegExp on generated patterns and strings', () => {
    fc.assert(
      fc.property(regex, text, fc.boolean(), fc.boolean(), (pattern, s, dotAll, ci) => {
        const flags = `${dotAll ? 's' : ''}${ci ? 'i' : ''}u`;
        const prefix = `${dotAll ? '(?s)' : ''}${ci ? '(?i)' : ''}`;
        const expected = new RegExp(`^(?:${pattern})$`, flags).test(s);
        expect(matches(s, prefix + pattern)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

let engine: GraphEngine;

async function q(text: string, params?: Record<string, unknown>, limits?: BudgetLimits): Promise<CypherResult> {
  return runCypher(engine, 'g', text, params, limits === undefined ? {} : { limits });
}

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({
    graph: 'g',
    mutations: [
      { op: 'createNode', id: 'ann', label: 'Person', props: { name: 'Ann', age: 30 } },
      { op: 'createNode', id: 'al', label: 'Person', props: { name: 'alfred' } },
      { op: 'createNode', id: 'bob', label: 'Person', props: { name: 'Bob', age: 25 } },
      { op: 'createNode', id: 'dan', label: 'Person', props: { age: 7 } },
    ],
  });
});

describe('=~ through runCypher', () => {
  it('filters in WHERE, binding like a comparison', async () => {
    expect((await q("MATCH (p:Person) WHERE p.name =~ 'A.*' RETURN p.name")).rows).toEqual([['Ann']]);
    expect((await q("MATCH (p:Person) WHERE p.name =~ '(?i)a.*' AND p.id <> 'ann' RETURN p.name")).rows).toEqual([['alfred']]);
    expect((await q("MATCH (p:Person) WHERE NOT p.name =~ 'A.*' RETURN p.name")).rows).toEqual([['alfred'], ['Bob']]);
    expect((await q("RETURN 'ab' + 'c' =~ 'abc' AS m, ('x' =~ 'x') = true AS n")).rows).toEqual([[true, true]]);
  });

  it('takes a pattern from a parameter', async () => {
    expect((await q('MATCH (p:Person) WHERE p.name =~ $p RETURN p.name', { p: 'B\\w+' })).rows).toEqual([['Bob']]);
  });

  it('is null when either side is null or not a string', async () => {
    expect((await q("RETURN null =~ 'a', 'a' =~ null, 1 =~ '1', 'a' =~ 1")).rows).toEqual([[null, null, null, null]]);
    expect((await q("MATCH (p:Person {id: 'dan'}) RETURN p.name =~ '.*'")).rows).toEqual([[null]]);
  });

  it('refuses an invalid pattern with a runtime error, and a backreference by name', async () => {
    const invalid = await failure(q("RETURN 'a' =~ 'a('"));
    expect(invalid.code).toBe('TG_CYPHER_RUNTIME');
    expect(invalid.message).toMatch(/Invalid regular expression 'a\(' at index 2/);
    const backref = await failure(q("RETURN 'aa' =~ '(a)\\\\1'"));
    expect(backref.code).toBe('TG_CYPHER_UNSUPPORTED');
    expect(backref.message).toContain('backreference');
  });

  it('refuses a regex over a 1 MB string with many live states on the time budget', async () => {
    const s = 'a'.repeat(1 << 20);
    const limits = { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 300, maxStallMs: 50 };
    const started = performance.now();
    const error = await failure(q('RETURN $s =~ $p', { s, p: '(?:.*a){300}z' }, limits));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(['maxStallMs', 'timeoutMs']).toContain((error.details as { limit: string }).limit);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('completes a simple pattern over a 1 MB string', async () => {
    const s = `${'a'.repeat(1 << 20)}b`;
    expect((await q('RETURN $s =~ $p', { s, p: 'a*b' })).rows).toEqual([[true]]);
    expect((await q('RETURN $s =~ $p', { s, p: '[a-z]+c' })).rows).toEqual([[false]]);
  });
});
