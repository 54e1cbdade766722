import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimits } from '../../../src/graph/budget/index.ts';
import { runCypher } from '../../../src/graph/cypher/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

// Issue 24, item 4: the function library, end to end through runCypher.
let engine: GraphEngine;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({
    graph: 'g',
    mutations: [
      { op: 'createNode', id: 'a', label: 'P', props: { price: 10, name: 'Ann' } },
      { op: 'createNode', id: 'b', label: 'P', props: { price: 20, name: 'Bob' } },
      { op: 'createNode', id: 'c', label: 'P', props: { price: 30, name: 'Cy' } },
      { op: 'addEdge', src: 'a', tgt: 'b', type: 'KNOWS' },
    ],
  });
});

afterAll(async () => {
  await engine.close();
});

async function value(expr: string, params?: Record<string, unknown>, limits?: BudgetLimits): Promise<unknown> {
  const result = await runCypher(engine, 'g', `RETURN ${expr} AS v`, params, limits === undefined ? {} : { limits });
  return result.rows[0]![0];
}

async function refusal(expr: string, params?: Record<string, unknown>, limits?: BudgetLimits): Promise<ToolgraphError> {
  return failure(value(expr, params, limits));
}

describe('string functions', () => {
  it.each([
    ["substring('0123456789', 1)", '123456789'],
    ["substring('0123456789', 1, 3)", '123'],
    ["substring('0123456789', 20)", ''],
    ["substring('abc', 1, 1000000000000)", 'bc'],
    ["substring('a😀b', 1, 1)", '😀'],
    ["left('hello', 2)", 'he'],
    ["left('hello', 20)", 'hello'],
    ["right('hello', 2)", 'lo'],
    ["right('a😀', 1)", '😀'],
    ["replace('hello', 'l', 'x')", 'hexxo'],
    ["replace('aaaa', 'aa', 'b')", 'bb'],
    ["replace('abc', '', '-')", '-a-b-c-'],
    ["split('one1two', '1')", ['one', 'two']],
    ["split('a,b,', ',')", ['a', 'b', '']],
    ["split('ab', '')", ['a', 'b']],
    ["reverse('raksO')", 'Oskar'],
    ["reverse('a😀b')", 'b😀a'],
    ["lTrim('  a  ')", 'a  '],
    ["rtrim('  a  ')", '  a'],
    ["TOUPPER('a')", 'A'],
    ["toStringOrNull([1])", null],
    ["toStringOrNull(12)", '12'],
  ])('%s is %j', async (expr, expected) => {
    expect(await value(expr)).toEqual(expected);
  });

  it.each(["substring(null, 1)", "substring('a', null)", "left(null, 1)", "replace('a', null, 'b')", "split(null, ',')", "reverse(null)", "ltrim(null)"])('%s is null', async (expr) => {
    expect(await value(expr)).toBeNull();
  });

  it('names the type it wanted and what it got', async () => {
    const e = await refusal('substring(3, 1)');
    expect(e.code).toBe('TG_CYPHER_RUNTIME');
    expect(e.message).toContain('substring() expects a String, got Integer 3');
    expect((await refusal("substring('abc', -1)")).message).toContain('substring() expects a non-negative Integer as its start, got Integer -1');
  });

  const small: BudgetLimits = { ...DEFAULT_BUDGET_LIMITS, maxResultBytes: 100_000 };
  const big = 'ab'.repeat(500_000);

  it('charges replace() by the string it would build, before building it', async () => {
    const e = await refusal("replace($s, 'a', 'xyz')", { s: big }, small);
    expect(e.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(e.details).toMatchObject({ limit: 'maxResultBytes' });
  });

  it('charges split() by the list it would build', async () => {
    const e = await refusal("size(split($s, 'a'))", { s: big }, small);
    expect(e.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(e.details).toMatchObject({ limit: 'maxResultBytes' });
  });

  it('replaces and splits with a long needle (the linear search)', async () => {
    const needle = `${'a'.repeat(300)}b`;
    const text = `${'a'.repeat(1000)}b${'a'.repeat(300)}b`;
    expect(await value('size(split($t, $n))', { t: text, n: needle })).toBe(3);
    expect(await value("replace($t, $n, '')", { t: text, n: needle })).toBe('a'.repeat(700));
  });
});

describe('math functions', () => {
  it.each([
    ['round(2.5)', 3],
    ['round(-2.5)', -2],
    ['round(3.14159, 2)', 3.14],
    ['round(2.675, 2)', 2.68],
    ["round(2.5, 0, 'HALF_EVEN')", 2],
    ["round(-1.25, 1, 'half_down')", -1.2],
    ['ceil(1.1)', 2],
    ['floor(-1.1)', -2],
    ['sqrt(12.96)', 3.6],
    ['sign(-3)', -1],
    ['sign(0)', 0],
    ['exp(0)', 1],
    ['log(e())', 1],
    ['log10(1000)', 3],
    ['degrees(pi())', 180],
    ['radians(180) = pi()', true],
    ['atan2(1, 1) = pi() / 4', true],
    ['haversin(0)', 0],
    ['cot(pi() / 4) > 0.999', true],
    ['isNaN(1.5)', false],
    ['abs(-1)', 1],
    ['sin(null)', null],
  ])('%s is %j', async (expr, expected) => {
    expect(await value(expr)).toEqual(expected);
  });

  it('rand() is in [0, 1)', async () => {
    const r = (await value('rand()')) as number;
    expect(r).toBeGreaterThanOrEqual(0);
    expect(r).toBeLessThan(1);
  });

  it('refuses a result JSON cannot hold', async () => {
    expect((await refusal('sqrt(-1)')).code).toBe('TG_CYPHER_RUNTIME');
    expect((await refusal('log(0)')).message).toContain('log(0) is -Infinity');
  });
});

describe('list functions', () => {
  it.each([
    ['range(0, 3)', [0, 1, 2, 3]],
    ['range(1381, -3412, -1298)', [1381, 83, -1215, -2513]],
    ['range(0, 1, -1)', []],
    ['range(0, 0, -1)', [0]],
    ['range(-10, 10, 3)', [-10, -7, -4, -1, 2, 5, 8]],
    ['tail([1, 2, 3])', [2, 3]],
    ['tail([])', []],
    ['reverse([1, 2, 3])', [3, 2, 1]],
    ['size(range(1, 10))', 10],
  ])('%s is %j', async (expr, expected) => {
    expect(await value(expr)).toEqual(expected);
  });

  it('refuses a zero step and non-integers', async () => {
    expect((await refusal('range(2, 8, 0)')).message).toContain('range() expects a step other than 0');
    expect((await refusal('range(0, 1.5)')).message).toContain('range() expects an Integer as its end, got Float 1.5');
    expect((await refusal("range('a', 1)")).code).toBe('TG_CYPHER_RUNTIME');
  });

  it('charges range() before building it: range(0, 1e9) is refused at once', async () => {
    const started = performance.now();
    const e = await refusal('size(range(0, 1000000000))');
    expect(e.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(e.details).toMatchObject({ limit: 'maxResultBytes' });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('conversion functions', () => {
  it.each([
    ["toBoolean('true')", true],
    ["toBoolean(' FALSE ')", false],
    ["toBoolean('f alse')", null],
    ['toBoolean(0)', false],
    ['toBooleanOrNull([])', null],
    ["toIntegerOrNull('12')", 12],
    ["toIntegerOrNull('x')", null],
    ['toIntegerOrNull({})', null],
    ["toFloatOrNull('1.5')", 1.5],
    ['toFloatOrNull(true)', null],
    ["toIntegerList(['1', 2.9, 'x', null, [1]])", [1, 2, null, null, null]],
    ["toFloatList(['1.5', 2])", [1.5, 2]],
    ["toStringList([1, true, 'a', {}])", ['1', 'true', 'a', null]],
    ["toBooleanList(['true', 0, 'no'])", [true, false, null]],
    ['toIntegerList(null)', null],
  ])('%s is %j', async (expr, expected) => {
    expect(await value(expr)).toEqual(expected);
  });

  it('refuses what toBoolean() cannot convert', async () => {
    expect((await refusal('toBoolean([])')).message).toContain('toBoolean() expects a Boolean, String or Integer, got List');
    expect((await refusal('toIntegerList(1)')).message).toContain('toIntegerList() expects a List, got Integer 1');
  });
});

describe('graph functions', () => {
  it('elementId() of a node is its id, of a relationship its source, type and target', async () => {
    const result = await runCypher(engine, 'g', 'MATCH (a)-[r:KNOWS]->(b) RETURN elementId(a), elementId(r), elementId(null)');
    expect(result.rows).toEqual([['a', '["a","KNOWS","b"]', null]]);
  });
});

describe('aggregates', () => {
  async function agg(expr: string, params?: Record<string, unknown>): Promise<unknown> {
    return (await runCypher(engine, 'g', `MATCH (n:P) RETURN ${expr} AS v`, params)).rows[0]![0];
  }

  it.each([
    [0, 10, 10],
    [0.5, 20, 20],
    [1, 30, 30],
    [0.25, 15, 10],
    [0.9, 28, 30],
  ])('percentileCont / percentileDisc at %d', async (p, cont, disc) => {
    expect(await agg('percentileCont(n.price, $p)', { p })).toBeCloseTo(cont);
    expect(await agg('percentileDisc(n.price, $p)', { p })).toBe(disc);
  });

  it('refuses a percentile outside [0, 1]', async () => {
    for (const p of [1000, -1, 1.1]) {
      const e = await failure(agg('percentileCont(n.price, $p)', { p }));
      expect(e.message).toContain('percentileCont() expects a percentile from 0.0 to 1.0');
    }
  });

  it('stDev and stDevP', async () => {
    expect(await agg('stDev(n.price)')).toBeCloseTo(10);
    expect(await agg('stDevP(n.price)')).toBeCloseTo(Math.sqrt(200 / 3));
    expect(await agg('stDev(n.missing)')).toBe(0);
    expect(await agg('percentileDisc(n.missing, 0.5)')).toBeNull();
  });
});

describe('integer arithmetic', () => {
  it.each([
    ['7 / 2', 3],
    ['-7 / 2', -3],
    ['7 / -2', -3],
    ['7.0 / 2', 3],
    ['7.5 / 2', 3.75],
    ['7 % 2', 1],
    ['-7 % 2', -1],
    ['7 % -2', 1],
    ['-4 % 2', 0],
    ['12 / 4 * 3 - 2 * 4', 1],
    ['12 / 4 * (3 - 2 * 4)', -15],
    ['9007199254740991 / 2', 4503599627370495],
    ['-9007199254740991 / 10', -900719925474099],
    ['2 ^ 60 > 0', true],
  ])('%s is %j', async (expr, expected) => {
    expect(await value(expr)).toEqual(expected);
  });

  it.each(['9007199254740991 + 1', '-9007199254740991 - 1', '4294967296 * 4294967296'])('%s overflows', async (expr) => {
    const e = await refusal(expr);
    expect(e.code).toBe('TG_CYPHER_RUNTIME');
    expect(e.message).toContain('integer overflow');
    expect(e.message).toContain('±9007199254740991');
  });

  it('refuses integer division and modulo by zero', async () => {
    expect((await refusal('1 / 0')).message).toContain('division by zero');
    expect((await refusal('1 % 0')).message).toContain('modulo by zero');
  });
});
