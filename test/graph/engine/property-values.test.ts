import { describe, expect, it } from 'vitest';
import { fits, kindOf, typeAfter } from '../../../src/graph/engine/property-values.ts';

describe('property values', () => {
  it.each([
    ['a string', 'x', 'String'],
    ['an empty string', '', 'String'],
    ['a safe integer', 42, 'Int'],
    ['a negative integer', -7, 'Int'],
    ['the largest safe integer', Number.MAX_SAFE_INTEGER, 'Int'],
    ['a float', 2.5, 'Float'],
    ['a boolean', false, 'Boolean'],
    ['null', null, 'null'],
    ['an empty list', [], 'emptyList'],
    ['a string list', ['a', 'b'], '[String]'],
    ['an integer list', [1, 2], '[Int]'],
    ['a mixed number list', [1, 2.5], '[Float]'],
    ['a boolean list', [true], '[Boolean]'],
  ] as const)('accepts %s', (_name, value, kind) => {
    expect(kindOf(value, 'props.p')).toBe(kind);
  });

  it.each([
    ['NaN', Number.NaN, 'a finite number'],
    ['Infinity', Number.POSITIVE_INFINITY, 'a finite number'],
    ['-Infinity', Number.NEGATIVE_INFINITY, 'a finite number'],
    ['an unsafe integer', 2 ** 53, 'an integer between'],
    ['a nested object', { a: 1 }, 'nested objects are not supported'],
    ['undefined', undefined, 'got nothing'],
    ['a bigint', 1n, 'bigint 1'],
    ['a list with null', ['a', null], 'never null'],
    ['a mixed list', ['a', 1], 'all strings'],
    ['a list of lists', [[1]], 'never null or nested'],
    ['a list with NaN', [1, Number.NaN], 'finite'],
  ] as const)('refuses %s with TG_VALUE_INVALID saying what was expected', (_name, value, text) => {
    let caught: unknown;
    try {
      kindOf(value, 'props.p');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'TG_VALUE_INVALID' });
    expect((caught as Error).message).toContain('props.p');
    expect((caught as Error).message).toContain(text);
  });

  it.each([
    ['Float', 'Int', true],
    ['[Float]', '[Int]', true],
    ['Int', 'Float', false],
    ['String', 'Int', false],
    ['[String]', 'emptyList', true],
    ['String', 'emptyList', false],
    ['Boolean', 'null', true],
    ['[Int]', '[Float]', false],
  ] as const)('a %s property takes %s: %s', (declared, kind, ok) => {
    expect(fits(declared, kind)).toBe(ok);
  });

  it.each([
    ['Int', 'Int', 'Int'],
    ['Int', 'Float', 'Float'],
    ['[Int]', '[Float]', '[Float]'],
    ['[Int]', '[Int]', '[Int]'],
    ['Float', 'Int', 'Float'],
    ['[Float]', '[Int]', '[Float]'],
    ['[Int]', 'emptyList', '[Int]'],
    ['Int', 'null', 'Int'],
    ['Int', '[Float]', undefined],
    ['Int', 'String', undefined],
    ['[Int]', 'Float', undefined],
    ['Float', '[Float]', undefined],
    ['String', 'Float', undefined],
    ['Boolean', 'Int', undefined],
  ] as const)('a %s property that takes a %s value becomes %s', (declared, kind, after) => {
    expect(typeAfter(declared, kind)).toBe(after);
  });
});
