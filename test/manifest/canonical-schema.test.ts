import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson, canonicalJsonOfParsed, canonicalSchema, FRAGMENT_BYTES, fragmentCount, fragmentLength, fragmentOf, MAX_SCHEMA_BYTES, partDigest, sha256Hex,
} from '../../src/manifest/index.ts';

describe('sha256Hex', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['{}', '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'],
  ])('hashes %j', (input, digest) => {
    expect(sha256Hex(input)).toBe(digest);
    expect(sha256Hex(Buffer.from(input))).toBe(digest);
  });
});

describe('canonicalJson (RFC 8785)', () => {
  it('serialises the RFC 8785 sample (numbers, escapes, key order)', () => {
    const input = JSON.parse('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}');
    expect(canonicalJson(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it('orders keys by UTF-16 code units (RFC 8785 §3.2.3 sample)', () => {
    const input = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    const keys = Object.keys(JSON.parse(canonicalJson(input)) as object);
    // JSON.parse puts integer-like keys first, so compare the serialised order instead.
    expect(keys.sort()).toEqual(Object.keys(input).sort());
    expect(canonicalJson(input)).toBe('{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}');
  });

  it('rejects values JSON cannot carry', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/NaN/);
    expect(() => canonicalJson({ a: Infinity })).toThrow(/Infinity/);
    expect(() => canonicalJson('\ud800')).toThrow(/surrogate/);
    expect(() => canonicalJson(undefined)).toThrow(/no JSON form/);
  });

  it('has a fast form for parsed values that is byte-identical to the canonicalize package (property)', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      expect(canonicalJsonOfParsed(value)).toBe(canonicalJson(value));
      const parsed: unknown = JSON.parse(JSON.stringify(value));
      expect(canonicalJsonOfParsed(parsed)).toBe(canonicalJson(parsed));
    }), { numRuns: 500 });
    // Integer-like keys: JS enumerates them first and numerically; JCS sorts by code units.
    const tricky = JSON.parse('{"b":1,"10":2,"9":3,"$defs":4,"a":{"2":0,"1":[1e21,-0,0.1]}}');
    expect(canonicalJsonOfParsed(tricky)).toBe(canonicalJson(tricky));
    expect(canonicalJsonOfParsed(tricky)).toBe('{"$defs":4,"10":2,"9":3,"a":{"1":[1e+21,0,0.1],"2":0},"b":1}');
    expect(() => canonicalJsonOfParsed({ k: '\ud800' })).toThrow(/surrogate/);
    expect(() => canonicalJsonOfParsed({ '\udc00': 1 })).toThrow(/surrogate/);
  });

  it('is idempotent under parse (property)', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const once = canonicalJson(value);
      expect(canonicalJson(JSON.parse(once))).toBe(once);
    }));
  });
});

describe('canonicalSchema', () => {
  it('digests the JCS bytes of the whole, the input and the output', () => {
    const canonical = canonicalSchema({ operation: 'op', input: { b: 1, a: 2 }, output: {} });
    const text = '{"input":{"a":2,"b":1},"operation":"op","output":{}}';
    expect(canonical.document.toString('utf8')).toBe(text);
    expect(canonical.schemaSha256).toBe(sha256Hex(text));
    expect(canonical.inputSchemaSha256).toBe(sha256Hex('{"a":2,"b":1}'));
    expect(canonical.outputSchemaSha256).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('gives the same digests whatever the key order of the input (property)', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
      const reversed = Object.fromEntries(Object.entries(object).reverse());
      const a = canonicalSchema({ operation: 'x', input: object as never, output: {} });
      const b = canonicalSchema({ operation: 'x', input: reversed as never, output: {} });
      expect(a.schemaSha256).toBe(b.schemaSha256);
      expect(partDigest(JSON.parse(a.document.toString('utf8')).input)).toBe(a.inputSchemaSha256);
    }), { numRuns: 50 });
  });
});

describe('fragments', () => {
  it.each([
    [1, 1, [1]],
    [4095, 1, [4095]],
    [4096, 1, [4096]],
    [4097, 2, [4096, 1]],
    [8192, 2, [4096, 4096]],
  ])('a %i-byte schema is %i fragments', (bytes, count, lengths) => {
    expect(fragmentCount(bytes)).toBe(count);
    const document = Buffer.alloc(bytes, 7);
    expect(Array.from({ length: count }, (_, i) => fragmentOf(document, i)!.length)).toEqual(lengths);
    expect(Array.from({ length: count }, (_, i) => fragmentLength(bytes, i))).toEqual(lengths);
    expect(fragmentOf(document, count)).toBeUndefined();
    expect(fragmentLength(bytes, count)).toBe(0);
  });

  it('has no fragment in an empty document', () => {
    expect(fragmentCount(0)).toBe(0);
    expect(fragmentOf(Buffer.alloc(0), 0)).toBeUndefined();
  });

  it('cuts 16 MiB into exactly 4096 fragments of 4096 bytes', () => {
    expect(MAX_SCHEMA_BYTES).toBe(16_777_216);
    expect(fragmentCount(MAX_SCHEMA_BYTES)).toBe(4096);
    const document = Buffer.alloc(MAX_SCHEMA_BYTES);
    expect(fragmentOf(document, 4095)!.length).toBe(FRAGMENT_BYTES);
    expect(fragmentOf(document, 4096)).toBeUndefined();
    expect(fragmentCount(MAX_SCHEMA_BYTES + 1)).toBe(4097);
  });

  it('rejects negative and non-integer indexes', () => {
    const document = Buffer.alloc(10);
    expect(fragmentOf(document, -1)).toBeUndefined();
    expect(fragmentOf(document, 0.5)).toBeUndefined();
  });

  it('reassembles to the document (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 20_000 }), (bytes) => {
      const document = Buffer.from(Array.from({ length: bytes }, (_, i) => i % 251));
      const parts = Array.from({ length: fragmentCount(bytes) }, (_, i) => fragmentOf(document, i)!);
      expect(Buffer.concat(parts).equals(document)).toBe(true);
      expect(parts.slice(0, -1).every((p) => p.length === FRAGMENT_BYTES)).toBe(true);
    }), { numRuns: 30 });
  });
});
