import { describe, expect, it } from 'vitest';
import { verifySchemaDocument } from '../../src/manifest/client/index.ts';
import { canonicalJson, canonicalSchema, createSchemaClient, fragmentCount, sha256Hex, type SchemaManifest } from '../../src/manifest/index.ts';
import { failure } from '../support/toolgraph-failure.ts';

const input = { type: 'object', properties: { b: { type: 'string', description: 'tab\there, "quoted", caf\u00e9 \ud83d\ude00' }, a: { type: 'integer', minimum: -1.5e-7 } }, required: ['a'] };
const output = { type: ['object', 'null'], additionalProperties: false };
const canonical = { document: Buffer.from(canonicalSchema({ operation: 'op', input, output }).document).toString('utf8') };

/** A manifest for `bytes` whose whole digest matches them and whose part digests are the canonical ones. */
function manifestFor(bytes: Buffer, edits: Partial<SchemaManifest> = {}): SchemaManifest {
  const sha = sha256Hex(bytes);
  return {
    version: 1, operation: 'op', alias: 'tools-op', source_sha256: 'ab'.repeat(32), schema_sha256: sha,
    input_schema_sha256: sha256Hex(canonicalJson(input)), output_schema_sha256: sha256Hex(canonicalJson(output)),
    schema_bytes: bytes.length, fragment_count: fragmentCount(bytes.length),
    manifest_uri: `http://schemas.test/schemas/${sha}`, fragment_uri_template: `http://schemas.test/schemas/${sha}/fragments/{index}`,
    ...edits,
  };
}

/** A fetch serving `manifest` and the fragments of `bytes`, as a catalogue that signs whatever it serves would. */
function servingFetch(manifest: SchemaManifest, bytes: Buffer) {
  return async (url: string) => {
    const fragment = /\/fragments\/(\d+)$/.exec(url);
    if (fragment) return new Response(new Uint8Array(bytes.subarray(Number(fragment[1]) * 4096, (Number(fragment[1]) + 1) * 4096)), { status: 200 });
    return new Response(JSON.stringify(manifest), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

describe('verifySchemaDocument', () => {
  const bytes = Buffer.from(canonical.document, 'utf8');

  it('accepts the canonical document and parses its parts on demand', () => {
    const verified = verifySchemaDocument(manifestFor(bytes), bytes);
    expect(verified.operation).toBe('op');
    expect(verified.input).toEqual(input);
    expect(verified.output).toEqual(output);
    expect(verified.input).toBe(verified.input);
  });

  it.each([
    ['input_schema_sha256', { input_schema_sha256: sha256Hex(canonicalJson(output)) }],
    ['output_schema_sha256', { output_schema_sha256: sha256Hex(canonicalJson(input)) }],
  ] as const)('refuses a document whose whole digest matches but whose %s does not', (field, edit) => {
    const error = failure(() => verifySchemaDocument(manifestFor(bytes, edit), bytes));
    expect(error.code).toBe('TG_DIGEST_MISMATCH');
    expect(error.message).toContain(`manifest announces ${field}`);
  });

  it('refuses a document naming another operation', () => {
    const error = failure(() => verifySchemaDocument(manifestFor(bytes, { operation: 'other' }), bytes));
    expect(error.code).toBe('TG_DIGEST_MISMATCH');
    expect(error.message).toContain('names operation "op"');
  });

  it.each([
    ['pretty-printed', JSON.stringify(JSON.parse(canonical.document), null, 2)],
    ['keys unsorted', JSON.stringify({ operation: 'op', input, output })],
    ['one trailing newline', `${canonical.document}\n`],
    ['a number written 1.50e-7 style', canonical.document.replace('-1.5e-7', '-1.50e-7')],
    ['a short escape rewritten as \\u', canonical.document.replace('\\t', '\\u0009')],
  ])('refuses valid but non-canonical JSON (%s) even when its digests match', (_label, text) => {
    expect(text).not.toBe(canonical.document);
    const data = Buffer.from(text, 'utf8');
    // The parts re-serialise to the announced digests, so only the canonical-form check can catch it.
    const parsed = JSON.parse(text) as { input: unknown; output: unknown };
    expect(sha256Hex(canonicalJson(parsed.input))).toBe(manifestFor(data).input_schema_sha256);
    const error = failure(() => verifySchemaDocument(manifestFor(data), data));
    expect(error.code).toBe('TG_DIGEST_MISMATCH');
    expect(error.message).toContain('not canonical (RFC 8785) JSON');
  });

  it.each([
    ['an extra member', canonicalJson({ extra: 1, input, operation: 'op', output })],
    ['a missing member', canonicalJson({ input, output })],
    ['an array', canonicalJson([input, 'op', output])],
    ['the members renamed', canonicalJson({ input, operation: 'op', outputs: output })],
  ])('refuses a canonical document with %s', (_label, text) => {
    const data = Buffer.from(text, 'utf8');
    const error = failure(() => verifySchemaDocument(manifestFor(data), data));
    expect(error.code).toBe('TG_DIGEST_MISMATCH');
    expect(error.message).toContain('not an {input, operation, output} document');
  });

  it('refuses through the client too, writing nothing to the cache', async () => {
    const data = Buffer.from(JSON.stringify(JSON.parse(canonical.document), null, 2), 'utf8');
    const manifest = manifestFor(data);
    const client = createSchemaClient({ url: 'http://schemas.test', fetch: servingFetch(manifest, data), retries: 0 });
    await expect(client.get(manifest.schema_sha256)).rejects.toMatchObject({ code: 'TG_DIGEST_MISMATCH', message: expect.stringContaining('not canonical') });
    const wrongInput = manifestFor(bytes, { input_schema_sha256: '0'.repeat(64) });
    const other = createSchemaClient({ url: 'http://schemas.test', fetch: servingFetch(wrongInput, bytes), retries: 0 });
    await expect(other.get(wrongInput.schema_sha256)).rejects.toMatchObject({ code: 'TG_DIGEST_MISMATCH', message: expect.stringContaining('input_schema_sha256') });
  });
});
