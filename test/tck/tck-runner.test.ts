import { describe, expect, it } from 'vitest';
import { checkFloor } from '../../scripts/tck/baseline.ts';
import { parseFeature } from '../../scripts/tck/gherkin.ts';
import { runScenario, type Outcome } from '../../scripts/tck/scenario.ts';
import type { ScenarioResult, SuiteResult } from '../../scripts/tck/suite.ts';
import { parseTckValue, showTck } from '../../scripts/tck/values.ts';

function feature(body: string): string {
  return `Feature: Test\n\n${body}`;
}

async function outcomeOf(body: string) {
  const [scenario] = parseFeature('test/Test.feature', feature(body));
  return runScenario(scenario!);
}

describe('the TCK value notation', () => {
  it.each([
    ['1', '1'], ['-2.5', '-2.5'], ["'it\\'s'", "'it's'"], ['null', 'null'], ['true', 'true'], ['[1, [2.0, null]]', '[1, [2.0, null]]'],
    ["{a: 1, `b c`: 'x'}", "{a: 1, b c: 'x'}"], ['(:A {num: 1})', '(:A {num: 1})'], ['[:T]', '[:T]'], ['<(:A)-[:T]->(:B)<-[:U]-(:C)>', '<(:A)-[:T]->(:B)<-[:U]-(:C)>'],
  ])('reads %s', (text, shown) => {
    expect(showTck(parseTckValue(text))).toBe(shown);
  });

  it('tells a relationship from a list', () => {
    expect(parseTckValue('[:T {p: 1}]').kind).toBe('relationship');
    expect(parseTckValue('[]').kind).toBe('list');
  });
});

describe('the Gherkin reader', () => {
  it('expands an outline, one scenario per Examples row, with the background first', () => {
    const scenarios = parseFeature('f.feature', feature(`  Background:
    Given an empty graph

  Scenario Outline: [1] Add <x>
    When executing query:
      """
      RETURN <x> + 1 AS v
      """
    Then the result should be, in any order:
      | v   |
      | <y> |
    And no side effects

    Examples:
      | x | y |
      | 1 | 2 |
      | 5 | 6 |
`));
    expect(scenarios.map((s) => [s.name, s.example, s.steps.length])).toEqual([['[1] Add <x>', 1, 4], ['[1] Add <x>', 2, 4]]);
    expect(scenarios[1]!.steps[1]!.docString).toBe('RETURN 5 + 1 AS v');
    expect(scenarios[1]!.steps[2]!.table).toEqual([['v'], ['6']]);
  });
});

describe('a scenario through the real Cypher path', () => {
  it('passes when rows (nodes with their label) and side effects match', async () => {
    expect(await outcomeOf(`  Scenario: s
    Given an empty graph
    And having executed:
      """
      CREATE (:A {num: 1})-[:T]->(:B {num: 2})
      """
    When executing query:
      """
      MATCH (a)-[r]->(b) SET a.num = 3 RETURN a, r, b
      """
    Then the result should be, in any order:
      | a             | r    | b             |
      | (:A {num: 3}) | [:T] | (:B {num: 2}) |
    And the side effects should be:
      | +properties | 1 |
      | -properties | 1 |
`)).toEqual({ status: 'passed', reason: '' });
  });

  it('compares a path by its nodes, relationships and their directions', async () => {
    const path = (expected: string) => outcomeOf(`  Scenario: s
    Given an empty graph
    And having executed:
      """
      CREATE (:A)-[:T]->(:B)
      """
    When executing query:
      """
      MATCH p = (:B)<--(:A) RETURN p
      """
    Then the result should be, in any order:
      | p |
      | ${expected} |
    And no side effects
`);
    expect(await path('<(:B)<-[:T]-(:A)>')).toEqual({ status: 'passed', reason: '' });
    expect((await path('<(:B)-[:T]->(:A)>')).status).toBe('failed');
    expect((await path('<(:A)-[:T]->(:B)>')).status).toBe('failed');
  });

  it('fails on a wrong label, a wrong count or a wrong side effect', async () => {
    const wrongLabel = await outcomeOf(`  Scenario: s
    Given an empty graph
    And having executed:
      """
      CREATE (:A)
      """
    When executing query:
      """
      MATCH (n) RETURN n
      """
    Then the result should be, in any order:
      | n    |
      | (:B) |
    And no side effects
`);
    expect(wrongLabel.status).toBe('failed');
    const effects = await outcomeOf(`  Scenario: s
    Given an empty graph
    When executing query:
      """
      CREATE (:A), (:A)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes  | 2 |
      | +labels | 2 |
`);
    expect(effects).toMatchObject({ status: 'failed', reason: expect.stringContaining('+labels 1 (expected 2)') });
  });

  it('checks the phase of an expected error', async () => {
    const syntax = (phase: string) => outcomeOf(`  Scenario: s
    Given any graph
    When executing query:
      """
      RETURN 1 +
      """
    Then a SyntaxError should be raised at ${phase}: UnexpectedSyntax
`);
    expect((await syntax('compile time')).status).toBe('passed');
    expect((await syntax('runtime')).status).toBe('failed');
  });

  it('counts a refusal of the graph model apart, and a missing construct as other', async () => {
    const outside = await outcomeOf(`  Scenario: s
    Given an empty graph
    And having executed:
      """
      CREATE (:A:B)
      """
    When executing query:
      """
      MATCH (n) RETURN count(n) AS c
      """
    Then the result should be, in any order:
      | c |
      | 1 |
`);
    expect(outside).toMatchObject({ status: 'outside', construct: 'a node with several labels' });
    const temporal = await outcomeOf(`  Scenario: s
    Given any graph
    When executing query:
      """
      RETURN date.truncate('month', date('2020-01-15')) AS d
      """
    Then the result should be empty
`);
    expect(temporal).toMatchObject({ status: 'outside', construct: 'a temporal value' });
    // Needs a node without a label, and also a construct the subset lacks: not only the model.
    const both = await outcomeOf(`  Scenario: s
    Given an empty graph
    And having executed:
      """
      CREATE ()
      """
    When executing query:
      """
      RETURN noSuchFunction(1) AS x
      """
    Then the result should be empty
`);
    expect(both).toMatchObject({ status: 'other', construct: 'the function noSuchFunction()' });
  });
});

describe('the floor', () => {
  const result = (key: string, status: Outcome['status']): ScenarioResult => ({ key, folder: 'f', status, reason: status === 'passed' ? '' : 'why', ms: 1 });
  const suite = (...results: ScenarioResult[]): SuiteResult => ({ results, folders: new Map(), totals: { passed: 0, failed: 0, outside: 0, other: 0 }, ms: 1 });
  const baseline = { totals: { passed: 2, failed: 0, outside: 0, other: 0 }, passed: ['a', 'b'] };

  it('names every baseline scenario that no longer passes, and the newly passing ones apart', () => {
    expect(checkFloor(suite(result('a', 'passed'), result('b', 'other'), result('c', 'passed')), baseline)).toEqual({
      regressions: [{ key: 'b', reason: 'why' }],
      newlyPassing: ['c'],
    });
  });

  it('does not count scenarios a filtered run left out', () => {
    expect(checkFloor(suite(result('a', 'passed')), baseline).regressions).toEqual([]);
  });
});
