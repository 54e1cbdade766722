import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalScanner, NotCanonicalError, scanCanonicalJson } from '../../src/manifest/client/index.ts';
import { canonicalJson, sha256Hex } from '../../src/manifest/index.ts';

/** No lone surrogates (JCS cannot carry them). */
const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();
const bytes = (text: string) => Buffer.from(text, 'utf8');
const accepts = (data: Uint8Array) => {
  try {
    scanCanonicalJson(data);
    return true;
  } catch (error) {
    if (error instanceof NotCanonicalError) return false;
    throw error;
  }
};
/** The definition the scanner must match: bytes are JCS exactly when re-serialising their parse gives them back. */
const isJcs = (text: string) => {
  try {
    return canonicalJson(JSON.parse(text)) === text;
  } catch {
    return false;
  }
};

describe('scanCanonicalJson', () => {
  it('accepts the JCS of any JSON value, including odd strings and numbers (property)', () => {
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, true, false),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.string({ unit: 'binary' }).filter(wellFormed),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }).filter(wellFormed), tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(fc.property(value, (v) => {
      expect(accepts(bytes(canonicalJson(v)))).toBe(true);
    }), { numRuns: 500 });
  });

  it('accepts exactly the texts that are their own JCS (property over reformatted and edited JSON)', () => {
    const text = fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 1_000 }), fc.string({ unit: 'binary', maxLength: 3 })).map(([value, mode, at, insert]) => {
      const canonical = canonicalJson(value);
      if (mode === 0) return canonical;
      if (mode === 1) return JSON.stringify(value, null, 1);
      const cut = at % (canonical.length + 1);
      return canonical.slice(0, cut) + insert + canonical.slice(cut);
    });
    fc.assert(fc.property(text, (t) => {
      expect(accepts(bytes(t))).toBe(isJcs(t));
    }), { numRuns: 2_000 });
  });

  it('gives the same verdict and members however the bytes arrive (resumable scan, property)', () => {
    const text = fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.boolean(), fc.integer({ min: 0, max: 1_000 }), fc.constantFrom('', ' ', '\\u0041', '"', '}', '1', '\\')).map(([value, edit, at, insert]) => {
      const canonical = canonicalJson({ input: value, operation: 'op', output: { v: value } });
      if (!edit) return canonical;
      const cut = at % (canonical.length + 1);
      return canonical.slice(0, cut) + insert + canonical.slice(cut);
    });
    const cuts = fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 12 });
    fc.assert(fc.property(text, cuts, (t, points) => {
      const data = bytes(t);
      const outcome = (run: () => unknown) => {
        try {
          return run();
        } catch (error) {
          if (error instanceof NotCanonicalError) return 'refused';
          throw error;
        }
      };
      const whole = outcome(() => scanCanonicalJson(data));
      const scanner = new CanonicalScanner(data);
      for (const point of [...points].sort((a, b) => a - b)) scanner.advance(Math.min(point, data.length));
      expect(outcome(() => scanner.finish())).toEqual(whole);
      expect(whole === 'refused').toBe(!isJcs(t));
    }), { numRuns: 1_000 });
  });

  it('reports the digests of the root members, as the SHA-256 of their JCS', () => {
    const doc = { input: { a: [1, 'é'] }, operation: 'op', output: {} };
    const members = scanCanonicalJson(bytes(canonicalJson(doc)))!;
    expect(members.map((m) => m.sha256)).toEqual([doc.input, doc.operation, doc.output].map((v) => sha256Hex(canonicalJson(v))));
  });

  it.each([
    ['whitespace between tokens', '{"a": 1}'],
    ['a newline at the end', '{"a":1}\n'],
    ['unsorted keys', '{"b":1,"a":2}'],
    ['a duplicate key', '{"a":1,"a":1}'],
    ['keys in UTF-8 byte order rather than UTF-16 order', '{"\ufb33":1,"\ud83d\ude00":2}'],
    ['an escaped solidus', '["\\/"]'],
    ['a needless \\u escape', '["\\u0041"]'],
    ['upper-case hex in an escape', '["\\u001F"]'],
    ['\\u0008 where JCS writes \\b', '["\\u0008"]'],
    ['an escaped lone surrogate', '["\\ud800"]'],
    ['a raw control character', '["a\tb"]'],
    ['negative zero', '[-0]'],
    ['a trailing zero', '[1.0]'],
    ['an upper-case exponent', '[1E+30]'],
    ['an exponent JavaScript would not use', '[1e2]'],
    ['a leading zero', '[01]'],
    ['a trailing comma', '[1,]'],
    ['two documents', '{}{}'],
    ['an unterminated string', '["abc'],
    ['an unclosed object', '{"a":1'],
    ['a bare word', 'nul'],
  ])('refuses %s', (_label, text) => {
    expect(isJcs(text)).toBe(false);
    expect(() => scanCanonicalJson(bytes(text))).toThrow(NotCanonicalError);
  });

  it('refuses bytes that are not UTF-8 (an encoded surrogate, an overlong form)', () => {
    expect(() => scanCanonicalJson(Buffer.from([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]))).toThrow(/UTF-8/);
    expect(() => scanCanonicalJson(Buffer.from([0x5b, 0x22, 0xc0, 0xaf, 0x22, 0x5d]))).toThrow(/UTF-8/);
  });

  it('returns the root members with the byte ranges of their values, which are their JCS', () => {
    const doc = { input: { b: [1, 'x\n'], a: null }, operation: 'op\u00e9', output: { type: 'object' } };
    const text = canonicalJson(doc);
    const data = bytes(text);
    const members = scanCanonicalJson(data)!;
    expect(members.map((m) => m.key)).toEqual(['input', 'operation', 'output']);
    for (const member of members) {
      expect(data.subarray(member.start, member.end).toString('utf8')).toBe(canonicalJson(doc[member.key as keyof typeof doc]));
    }
    expect(scanCanonicalJson(bytes('[1,{"a":2}]'))).toBeUndefined();
  });

  it('scans views at any byte offset, including tiny ones', () => {
    const backing = Buffer.from('xyz{"a":[1,"b"]}[]7');
    for (const [start, end, ok] of [[3, 16, true], [16, 18, true], [18, 19, true], [2, 16, false], [3, 4, false]] as const) {
      expect(accepts(backing.subarray(start, end))).toBe(ok);
    }
  });

  it('walks deep nesting without overflowing the stack', () => {
    const depth = 200_000;
    expect(accepts(bytes('['.repeat(depth) + ']'.repeat(depth)))).toBe(true);
    expect(accepts(bytes(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`))).toBe(true);
  });

  it('accepts a large canonical document full of escapes and non-ASCII text', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) properties[`field_${i}`] = { type: 'string', description: `Field ${i} \u00e9 "q" \\ ${'x'.repeat(i % 50)}` };
    expect(accepts(bytes(canonicalJson({ input: { properties }, operation: 'x', output: {} })))).toBe(true);
  });
});
