import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateSchemaManifest } from '../../generated/validators/schema-manifest.ts';
import { validateAccessPolicy } from '../../generated/validators/access-policy.ts';
import { checkAccessPolicy } from '../../src/graph/access/index.ts';
import { childPointer, decodePointerSegment, encodePointerSegment, fieldViolations, pointerSegments, schemaViolations, valueAtPointer } from '../../src/validation/index.ts';

const MANIFEST_KEYS = ['version', 'operation', 'alias', 'source_sha256', 'schema_sha256', 'input_schema_sha256', 'output_schema_sha256', 'schema_bytes', 'fragment_count', 'manifest_uri', 'fragment_uri_template'];
const POLICY_KEYS = ['version', 'read', 'write', 'rows'];

/** Keys rich in the two characters RFC 6901 escapes, and in the escapes themselves. */
const key = fc.oneof(
  fc.string(),
  fc.array(fc.constantFrom('~', '/', '0', '1', '~0', '~1', '~01', 'a', ''), { maxLength: 8 }).map((parts) => parts.join('')),
);

describe('RFC 6901 pointer escaping', () => {
  it('a segment decodes back to what was encoded, and its encoding has no "/" and no bare "~"', () => {
    fc.assert(fc.property(key, (k) => {
      const encoded = encodePointerSegment(k);
      expect(decodePointerSegment(encoded)).toBe(k);
      expect(encoded).not.toContain('/');
      expect(encoded).not.toMatch(/~(?![01])/);
    }));
  });

  it('a pointer built segment by segment splits back into the same segments and finds the value', () => {
    fc.assert(fc.property(fc.array(key, { maxLength: 6 }), fc.integer(), (keys, leaf) => {
      const pointer = keys.reduce((parent, k) => childPointer(parent, k), '');
      expect(pointerSegments(pointer)).toEqual(keys);
      const root = keys.reduceRight<unknown>((inner, k) => ({ [k]: inner }), leaf);
      expect(valueAtPointer(root, pointer)).toBe(leaf);
    }));
  });

  it('the examples of RFC 6901 §5', () => {
    const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };
    expect(valueAtPointer(doc, '')).toBe(doc);
    expect(valueAtPointer(doc, '/foo')).toEqual(['bar', 'baz']);
    expect(valueAtPointer(doc, '/foo/0')).toBe('bar');
    for (const [pointer, want] of [['/', 0], ['/a~1b', 1], ['/c%d', 2], ['/e^f', 3], ['/g|h', 4], ['/i\\j', 5], ['/k"l', 6], ['/ ', 7], ['/m~0n', 8]] as const) {
      expect(valueAtPointer(doc, pointer)).toBe(want);
    }
    expect(decodePointerSegment('~01')).toBe('~1');
  });

  it('every generated validator\'s unknown property is named by an escaped pointer that finds it', () => {
    fc.assert(fc.property(key, (k) => {
      fc.pre(!MANIFEST_KEYS.includes(k) && !POLICY_KEYS.includes(k));
      // The manifest refuses any extra property at the root; the access policy any outside its keys.
      const manifest = { [k]: true };
      expect(validateSchemaManifest(manifest)).toBe(false);
      const unknown = schemaViolations(validateSchemaManifest.errors).find((v) => v.kind === 'unknown');
      expect(unknown?.pointer).toBe(`/${encodePointerSegment(k)}`);
      expect(valueAtPointer(manifest, unknown!.pointer)).toBe(true);
      expect(fieldViolations(validateSchemaManifest.errors).find((v) => v.pointer === unknown!.pointer)?.expected).toBe(`no property ${JSON.stringify(k)}`);

      const policy = { version: 1, read: [], write: [], rows: {}, [k]: 1 };
      expect(validateAccessPolicy(policy)).toBe(false);
      let refusal: { details?: Record<string, unknown> } | undefined;
      try {
        checkAccessPolicy(policy);
      } catch (error) {
        refusal = error as { details?: Record<string, unknown> };
      }
      expect(refusal?.details?.['pointer']).toBe(`/${encodePointerSegment(k)}`);
    }));
  });
});
