import { readFileSync } from 'node:fs';
import { registerSchema, validate as hyperjumpValidate } from '@hyperjump/json-schema/draft-2020-12';
import type { Json } from '@hyperjump/json-pointer';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateSchemaManifest } from '../../generated/validators/schema-manifest.ts';
import { ToolgraphError } from '../../src/errors/index.ts';
import { assertSchemaManifest, isSchemaManifest, type SchemaManifest } from '../../src/manifest/index.ts';
import { fieldViolations } from '../../src/validation/index.ts';

const schemaText = readFileSync(new URL('../../specs/schema-manifest.schema.json', import.meta.url), 'utf8');
const schema = JSON.parse(schemaText) as { $id: string; required: string[] };

const HEX = 'a1b2c3d4e5f60789'.repeat(4);
const BASE: SchemaManifest = {
  version: 1,
  operation: 'searchSchemas',
  alias: 'search-schemas',
  source_sha256: HEX,
  schema_sha256: HEX,
  input_schema_sha256: HEX,
  output_schema_sha256: HEX,
  schema_bytes: 4097,
  fragment_count: 2,
  manifest_uri: `http://127.0.0.1:8080/schemas/${HEX}`,
  fragment_uri_template: `http://127.0.0.1:8080/schemas/${HEX}/fragments/{index}`,
};

function withField(field: string, value: unknown): Record<string, unknown> {
  return { ...BASE, [field]: value };
}
function without(field: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...BASE };
  delete copy[field];
  return copy;
}

/** Refusal of `value` must name `pointer`, the expected text and the got text. */
interface Refused { name: string; value: unknown; pointer: string; expected: string; got: string }

const accepted: Array<[string, unknown]> = [
  ['the base manifest', BASE],
  ['version 1', withField('version', 1)],
  ['operation of 512 characters', withField('operation', `A${'b'.repeat(511)}`)],
  ['operation of one letter', withField('operation', 'x')],
  ['operation with _ and digits after the first letter', withField('operation', 'get_Node_2')],
  ['alias of 128 characters', withField('alias', `a${'-'.repeat(127)}`)],
  ['alias with - after the first letter', withField('alias', 'a-b_c-9')],
  ['schema_bytes 1', withField('schema_bytes', 1)],
  ['schema_bytes 16777216', withField('schema_bytes', 16777216)],
  ['schema_bytes written 1.0 (an integer in JSON Schema)', withField('schema_bytes', 1.0)],
  ['fragment_count 1', withField('fragment_count', 1)],
  ['fragment_count 4100', withField('fragment_count', 4100)],
  ['empty manifest_uri (no format constraint)', withField('manifest_uri', '')],
  ['any fragment_uri_template string', withField('fragment_uri_template', 'not a template at all')],
  ...['source_sha256', 'schema_sha256', 'input_schema_sha256', 'output_schema_sha256'].map(
    (f): [string, unknown] => [`${f} of 64 lowercase hex digits`, withField(f, '0123456789abcdef'.repeat(4))],
  ),
];

const DIGEST = 'a string matching ^[0-9a-f]{64}$';
const OPERATION = 'a string of at most 512 characters matching ^[A-Za-z][A-Za-z0-9_]*$';
const ALIAS = 'a string of at most 128 characters matching ^[A-Za-z][A-Za-z0-9_-]*$';
const refused: Refused[] = [
  { name: 'version 0', value: withField('version', 0), pointer: '/version', expected: 'the integer 1', got: 'got 0' },
  { name: 'version 2', value: withField('version', 2), pointer: '/version', expected: 'the integer 1', got: 'got 2' },
  { name: 'version 1.5', value: withField('version', 1.5), pointer: '/version', expected: 'the integer 1', got: 'got 1.5' },
  { name: 'version "1"', value: withField('version', '1'), pointer: '/version', expected: 'the integer 1', got: 'got "1"' },
  { name: 'operation of 513 characters', value: withField('operation', `A${'b'.repeat(512)}`), pointer: '/operation', expected: OPERATION, got: 'got a string of 513 characters' },
  { name: 'operation starting with a digit', value: withField('operation', '1abc'), pointer: '/operation', expected: OPERATION, got: 'got "1abc"' },
  { name: 'operation starting with _', value: withField('operation', '_abc'), pointer: '/operation', expected: OPERATION, got: 'got "_abc"' },
  { name: 'operation with -', value: withField('operation', 'get-node'), pointer: '/operation', expected: OPERATION, got: 'got "get-node"' },
  { name: 'empty operation', value: withField('operation', ''), pointer: '/operation', expected: OPERATION, got: 'got ""' },
  { name: 'operation with a non-ASCII letter', value: withField('operation', 'café'), pointer: '/operation', expected: OPERATION, got: 'got "café"' },
  { name: 'operation not a string', value: withField('operation', 7), pointer: '/operation', expected: OPERATION, got: 'got 7' },
  { name: 'alias of 129 characters', value: withField('alias', `a${'-'.repeat(128)}`), pointer: '/alias', expected: ALIAS, got: 'got a string of 129 characters' },
  { name: 'alias starting with -', value: withField('alias', '-abc'), pointer: '/alias', expected: ALIAS, got: 'got "-abc"' },
  { name: 'alias starting with a digit', value: withField('alias', '9abc'), pointer: '/alias', expected: ALIAS, got: 'got "9abc"' },
  { name: 'alias with a space', value: withField('alias', 'a b'), pointer: '/alias', expected: ALIAS, got: 'got "a b"' },
  { name: 'empty alias', value: withField('alias', ''), pointer: '/alias', expected: ALIAS, got: 'got ""' },
  ...['source_sha256', 'schema_sha256', 'input_schema_sha256', 'output_schema_sha256'].flatMap((f): Refused[] => [
    { name: `${f} of 63 digits`, value: withField(f, HEX.slice(1)), pointer: `/${f}`, expected: DIGEST, got: `got "${HEX.slice(1)}"` },
    { name: `${f} of 65 digits`, value: withField(f, `${HEX}0`), pointer: `/${f}`, expected: DIGEST, got: `got "${HEX}0"` },
    { name: `${f} in uppercase`, value: withField(f, HEX.toUpperCase()), pointer: `/${f}`, expected: DIGEST, got: `got "${HEX.toUpperCase()}"` },
    { name: `${f} with a non-hex digit`, value: withField(f, `${HEX.slice(1)}g`), pointer: `/${f}`, expected: DIGEST, got: `got "${HEX.slice(1)}g"` },
    { name: `${f} with a trailing newline`, value: withField(f, `${HEX}\n`), pointer: `/${f}`, expected: DIGEST, got: 'got "' },
    { name: `${f} not a string`, value: withField(f, null), pointer: `/${f}`, expected: DIGEST, got: 'got null' },
  ]),
  { name: 'schema_bytes 0', value: withField('schema_bytes', 0), pointer: '/schema_bytes', expected: 'an integer from 1 to 16777216', got: 'got 0' },
  { name: 'schema_bytes 16777217', value: withField('schema_bytes', 16777217), pointer: '/schema_bytes', expected: 'an integer from 1 to 16777216', got: 'got 16777217' },
  { name: 'schema_bytes -1', value: withField('schema_bytes', -1), pointer: '/schema_bytes', expected: 'an integer from 1 to 16777216', got: 'got -1' },
  { name: 'schema_bytes 1.5', value: withField('schema_bytes', 1.5), pointer: '/schema_bytes', expected: 'an integer from 1 to 16777216', got: 'got 1.5' },
  { name: 'schema_bytes "10"', value: withField('schema_bytes', '10'), pointer: '/schema_bytes', expected: 'an integer from 1 to 16777216', got: 'got "10"' },
  { name: 'fragment_count 0', value: withField('fragment_count', 0), pointer: '/fragment_count', expected: 'an integer from 1 to 4100', got: 'got 0' },
  { name: 'fragment_count 4101', value: withField('fragment_count', 4101), pointer: '/fragment_count', expected: 'an integer from 1 to 4100', got: 'got 4101' },
  { name: 'fragment_count 2.5', value: withField('fragment_count', 2.5), pointer: '/fragment_count', expected: 'an integer from 1 to 4100', got: 'got 2.5' },
  { name: 'manifest_uri not a string', value: withField('manifest_uri', 1), pointer: '/manifest_uri', expected: 'a string', got: 'got 1' },
  { name: 'manifest_uri an object', value: withField('manifest_uri', { href: 'x' }), pointer: '/manifest_uri', expected: 'a string', got: 'got an object' },
  { name: 'fragment_uri_template not a string', value: withField('fragment_uri_template', ['x']), pointer: '/fragment_uri_template', expected: 'a string', got: 'got a list of 1 item' },
  ...schema.required.map((f): Refused => ({ name: `${f} missing`, value: without(f), pointer: `/${f}`, expected: `required property "${f}"`, got: 'got no such property' })),
  { name: 'an extra property', value: withField('extra', 1), pointer: '/extra', expected: 'no property "extra"', got: 'got 1' },
  { name: 'an extra property with a pointer-escaped name', value: withField('a/b~c', true), pointer: '/a~1b~0c', expected: 'no property "a/b~c"', got: 'got true' },
  { name: 'null', value: null, pointer: '(root)', expected: 'an object', got: 'got null' },
  { name: 'an array', value: [BASE], pointer: '(root)', expected: 'an object', got: 'got a list of 1 item' },
  { name: 'a string', value: 'manifest', pointer: '(root)', expected: 'an object', got: 'got "manifest"' },
  { name: 'a number', value: 42, pointer: '(root)', expected: 'an object', got: 'got 42' },
  { name: 'undefined', value: undefined, pointer: '(root)', expected: 'an object', got: 'got nothing' },
];

function messageOf(value: unknown): string {
  try {
    assertSchemaManifest(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgraphError);
    expect((error as ToolgraphError).code).toBe('TG_MANIFEST_INVALID');
    return (error as ToolgraphError).message;
  }
  throw new Error('assertSchemaManifest accepted the value');
}

/** The second, independent validator: hyperjump's draft 2020-12 implementation, loaded with the same file. */
async function hyperjumpAccepts(value: unknown): Promise<boolean> {
  const output = await hyperjumpValidate(schema.$id, value as Json);
  return output.valid;
}

beforeAll(() => {
  registerSchema(JSON.parse(schemaText));
});

describe('SchemaManifest validator: accepted vectors', () => {
  it.each(accepted)('accepts %s', async (_name, value) => {
    expect(validateSchemaManifest(value), JSON.stringify(validateSchemaManifest.errors)).toBe(true);
    expect(isSchemaManifest(value)).toBe(true);
    expect(assertSchemaManifest(value)).toBe(value);
    expect(await hyperjumpAccepts(value)).toBe(true);
  });
});

describe('SchemaManifest validator: refused vectors', () => {
  it.each(refused.map((r) => [r.name, r] as const))('refuses %s', async (_name, r) => {
    expect(validateSchemaManifest(r.value)).toBe(false);
    expect(isSchemaManifest(r.value)).toBe(false);
    const message = messageOf(r.value);
    expect(message).toContain(`${r.pointer}: expected ${r.expected}, ${r.got}`);
    // undefined is not a JSON value; hyperjump only takes JSON.
    if (r.value !== undefined) expect(await hyperjumpAccepts(r.value)).toBe(false);
  });

  it('lists every violation of a manifest with several, one per field', () => {
    const value = { ...withField('schema_bytes', 0), version: 2, alias: undefined, extra: 'x' };
    const message = messageOf(value);
    expect(message).toMatch(/^SchemaManifest is invalid \(4 violations\): /);
    for (const part of ['/version: expected the integer 1, got 2', '/schema_bytes: expected an integer from 1 to 16777216, got 0', '/alias: expected required property "alias"', '/extra: expected no property "extra", got "x"']) {
      expect(message).toContain(part);
    }
  });

  it('puts the violations in the error details', () => {
    try {
      assertSchemaManifest(withField('fragment_count', 4101));
      expect.unreachable();
    } catch (error) {
      expect((error as ToolgraphError).details).toEqual({
        violations: [{ pointer: '/fragment_count', expected: 'an integer from 1 to 4100', got: '4101' }],
      });
    }
  });

  it('counts maxLength in code points, not UTF-16 units', () => {
    // 101 code points are 201 UTF-16 units: over 128 units, within 128 code points, so only the pattern fails.
    expect(validateSchemaManifest(withField('alias', `a${'😀'.repeat(100)}`))).toBe(false);
    const keywords = (validateSchemaManifest.errors ?? []).map((e) => e.keyword);
    expect(keywords).toEqual(['pattern']);
    expect(validateSchemaManifest(withField('alias', `a${'😀'.repeat(128)}`))).toBe(false);
    expect((validateSchemaManifest.errors ?? []).map((e) => e.keyword).sort()).toEqual(['maxLength', 'pattern']);
  });
});

// Arbitraries of valid field values, straight from the schema's bounds.
const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'];
const digits = [...'0123456789'];
const hexDigits = [...'0123456789abcdef'];
const operationArb = fc.tuple(fc.constantFrom(...letters), fc.string({ unit: fc.constantFrom(...letters, ...digits, '_'), maxLength: 511 })).map(([a, b]) => a + b);
const aliasArb = fc.tuple(fc.constantFrom(...letters), fc.string({ unit: fc.constantFrom(...letters, ...digits, '_', '-'), maxLength: 127 })).map(([a, b]) => a + b);
const digestArb = fc.string({ unit: fc.constantFrom(...hexDigits), minLength: 64, maxLength: 64 });
const manifestArb: fc.Arbitrary<SchemaManifest> = fc.record({
  version: fc.constant(1),
  operation: operationArb,
  alias: aliasArb,
  source_sha256: digestArb,
  schema_sha256: digestArb,
  input_schema_sha256: digestArb,
  output_schema_sha256: digestArb,
  schema_bytes: fc.integer({ min: 1, max: 16777216 }),
  fragment_count: fc.integer({ min: 1, max: 4100 }),
  manifest_uri: fc.string(),
  fragment_uri_template: fc.string(),
});

const nonInteger = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d));
const notAString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }));
/** For each field, values that break exactly that field's rule. */
const brokenField: Record<keyof SchemaManifest, fc.Arbitrary<unknown>> = {
  version: fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 2 }), nonInteger, fc.constant('1')),
  operation: fc.oneof(
    fc.string({ unit: fc.constantFrom(...letters), minLength: 513, maxLength: 600 }),
    operationArb.map((s) => `${fc.sample(fc.constantFrom(...digits, '_', '-'), 1)[0]}${s}`),
    operationArb.map((s) => `${s}-`),
    fc.constant(''),
    notAString,
  ),
  alias: fc.oneof(
    fc.string({ unit: fc.constantFrom(...letters), minLength: 129, maxLength: 200 }),
    aliasArb.map((s) => `-${s}`),
    aliasArb.map((s) => `${s}.`),
    fc.constant(''),
    notAString,
  ),
  source_sha256: fc.oneof(digestArb.map((d) => d.slice(1)), digestArb.map((d) => `${d}a`), digestArb.map((d) => `F${d.slice(1)}`), notAString),
  schema_sha256: fc.oneof(digestArb.map((d) => d.slice(2)), digestArb.map((d) => `${d}0`), digestArb.map((d) => `z${d.slice(1)}`), notAString),
  input_schema_sha256: fc.oneof(digestArb.map((d) => d.toUpperCase().replace(/^[0-9]/, 'A')), digestArb.map((d) => `${d} `)),
  output_schema_sha256: fc.oneof(digestArb.map((d) => d.slice(0, 32)), fc.constant('')),
  schema_bytes: fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 16777217 }), nonInteger, fc.integer({ min: 1, max: 9 }).map(String)),
  fragment_count: fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 4101 }), nonInteger),
  manifest_uri: notAString,
  fragment_uri_template: notAString,
};

describe('SchemaManifest validator: properties', () => {
  it('accepts every random valid manifest, as hyperjump does', async () => {
    await fc.assert(
      fc.asyncProperty(manifestArb, async (manifest) => {
        expect(validateSchemaManifest(manifest)).toBe(true);
        expect(await hyperjumpAccepts(manifest)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses any single-field mutation out of range, naming that field alone', async () => {
    const fields = Object.keys(brokenField) as Array<keyof SchemaManifest>;
    const mutation = fc.constantFrom(...fields).chain((field) => fc.tuple(fc.constant(field), brokenField[field]));
    await fc.assert(
      fc.asyncProperty(manifestArb, mutation, async (manifest, [field, bad]) => {
        const value = { ...manifest, [field]: bad };
        expect(validateSchemaManifest(value)).toBe(false);
        expect(fieldViolations(validateSchemaManifest.errors).map((v) => v.pointer)).toEqual([`/${field}`]);
        expect(messageOf(value)).toContain(`/${field}: expected `);
        expect(await hyperjumpAccepts(value)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
