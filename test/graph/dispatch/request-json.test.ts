import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRequestJson } from '../../../src/graph/dispatch/index.ts';

const INTEGER_LITERAL = /^-?\d+$/;

/** The lossless pass alone (what parseRequestJson did for every body that held a long number): the reference. */
function reference(text: string): { value: unknown; topIdSource: string | undefined } {
  const idSources = new WeakMap<object, string>();
  const value = JSON.parse(text, function (this: object, key: string, parsed: unknown, context?: { source?: string }) {
    if (typeof parsed !== 'number' || context?.source === undefined) return parsed;
    if (key === 'id') idSources.set(this, context.source);
    if (!Number.isSafeInteger(parsed) && INTEGER_LITERAL.test(context.source)) return BigInt(context.source);
    return parsed;
  }) as unknown;
  return { value, topIdSource: typeof value === 'object' && value !== null ? idSources.get(value) : undefined };
}

function parsed(text: string): { value: unknown; topIdSource: string | undefined } {
  const { value, idSources } = parseRequestJson(text);
  return { value, topIdSource: typeof value === 'object' && value !== null ? idSources.get(value) : undefined };
}

/** Numbers written the ways that matter: short, at and past 2^53, u64, fractions, exponents, negative zero. */
const numberText = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.constantFrom('9007199254740991', '9007199254740992', '9007199254740993', '-9007199254740993', '1000000000000000',
    '18446744073709551615', '18446744073709551616', '123456789012345678901234567890', '1.0', '1.5', '1e3', '1E+3', '2.5e-7', '-0',
    '12345678901234567890.5', '1.5e300'),
);

/** JSON text with those numbers anywhere, `id` keys at every depth, repeated keys, escapes and spacing. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberText,
    fc.constantFrom('"x"', '"id"', '"a\\"b"', '"\\\\"', '"1234567890123456789"', 'true', 'null', '"\\u0069d"'),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(fc.constantFrom('"id"', '"graph"', '"\\u0069d"', '"p"', '"i"', '"idx"', '"a\\\\"'), tie('value'), fc.constantFrom('', ' ', '\n')), { maxLength: 4 })
      .map((entries) => `{${entries.map(([k, v, ws]) => `${ws}${k}${ws}:${ws}${v}${ws}`).join(',')}}`),
  ),
})).value;

describe('parseRequestJson', () => {
  it('reads every body exactly as the lossless pass does: bigints where doubles round, the top-level id source', () => {
    fc.assert(fc.property(jsonText, (text) => {
      expect(parsed(text)).toEqual(reference(text));
    }), { numRuns: 5000 });
  });

  it.each([
    ['a u64 id, nothing else long', '{"id":18446744073709551615,"graph":"g"}', 18446744073709551615n, '18446744073709551615'],
    ['the last of repeated ids', '{"id":18446744073709551615,"graph":"g","id":7}', 7, '7'],
    ['a long id after a short one', '{"id":7,"id" : 18446744073709551614}', 18446744073709551614n, '18446744073709551614'],
    ['an id written 1.0', '{"id":1.0}', 1, '1.0'],
    ['an id written with an exponent', '{"id":1e3}', 1000, '1e3'],
    ['an id beside a long parameter', '{"id":18446744073709551615,"p":{"q":[9007199254740993]}}', 18446744073709551615n, '18446744073709551615'],
  ])('%s', (_name, text, id, source) => {
    const { value, topIdSource } = parsed(text);
    expect((value as { id: unknown }).id).toBe(id);
    expect(topIdSource).toBe(source);
  });

  it('keeps long parameters exact beside a u64 id', () => {
    const { value } = parsed('{"id":18446744073709551615,"method":{"Cypher":{"params":{"id":9007199254740993,"x":[-90071992547409930]}}}}');
    expect(value).toEqual({ id: 18446744073709551615n, method: { Cypher: { params: { id: 9007199254740993n, x: [-90071992547409930n] } } } });
  });

  it('an escaped key spelling id is an id too', () => {
    expect(parsed('{"\\u0069d":18446744073709551615}')).toEqual({ value: { id: 18446744073709551615n }, topIdSource: '18446744073709551615' });
  });
});
