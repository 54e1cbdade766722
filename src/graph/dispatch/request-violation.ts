import type { ErrorObject } from 'ajv';
import { describeValue } from '../../errors/index.ts';
import { describeSchema, isSchemaObject, pointerSegments, schemaViolation, type SchemaObject } from '../../validation/index.ts';

/** One broken rule of a NativeRequest, as error messages and details show it. */
export interface RequestViolation {
  /** RFC 6901 pointer from the validator; `""` is the body itself. */
  readonly pointer: string;
  /** The same place in dotted form (`method.Cypher.query`), or `body`. */
  readonly field: string;
  readonly expected: string;
  readonly got: string;
}

/** ajv says only "must match exactly one schema in oneOf"; these say what the alternatives are. */
const ONE_OF_EXPECTED: Readonly<Record<string, string>> = {
  '/method': 'an object with exactly one of GraphQl or Cypher',
};

/** Phrases for `$ref`s the validator reports unresolved (e.g. a missing `method`). */
const REF_EXPECTED: Readonly<Record<string, string>> = {
  NativeMethod: 'an object with exactly one of GraphQl or Cypher',
  U64: 'a positive unsigned 64-bit integer',
};

function fieldOf(pointer: string): string {
  return pointer === '' ? 'body' : pointerSegments(pointer).join('.');
}

/** What a (sub)schema accepts, in words: "a non-empty string", "an object or null", … */
function expectedOf(schema: SchemaObject | undefined, pointer: string): string {
  if (pointer === '') return 'a NativeRequest object';
  return schema === undefined ? 'a valid value' : describeSchema(schema, { refs: REF_EXPECTED, namesRequired: true });
}

function violation(pointer: string, expected: string, got: string): RequestViolation {
  return { pointer, field: fieldOf(pointer), expected, got };
}

function describe(error: ErrorObject): RequestViolation {
  const v = schemaViolation(error);
  if (v.kind === 'missing') return violation(v.pointer, expectedOf(v.schema, v.pointer), 'nothing');
  if (v.kind === 'unknown') {
    const properties = isSchemaObject(v.objectSchema?.['properties']) ? v.objectSchema['properties'] : {};
    return violation(v.pointer, `no such field (allowed: ${Object.keys(properties).join(', ')})`, describeValue(v.value));
  }
  return violation(v.pointer, expectedOf(v.schema, v.pointer), describeValue(v.value));
}

function describeOneOf(error: ErrorObject): RequestViolation {
  const { pointer, value, schema } = schemaViolation(error);
  let got = describeValue(value);
  if (isSchemaObject(value)) {
    const keys = Object.keys(value);
    got = keys.length === 0 ? 'an empty object' : `keys ${keys.join(', ')}`;
  }
  const description = typeof schema?.['description'] === 'string' ? schema['description'] : 'one of the alternatives';
  return violation(pointer, ONE_OF_EXPECTED[pointer] ?? description, got);
}

function within(error: ErrorObject, pointer: string): boolean {
  return error.instancePath === pointer || error.instancePath.startsWith(`${pointer}/`);
}

/**
 * The violation to report from a failed validation: the first error in the validator's order, where
 * an error inside a `oneOf` stands for the branch the data meant (the one that got deeper), or, when
 * no branch got past the shape of the value itself, the `oneOf` as a whole ("exactly one of …").
 */
export function firstViolation(errors: readonly ErrorObject[], body: unknown): RequestViolation {
  const oneOfs = errors.filter((e) => e.keyword === 'oneOf');
  for (const error of errors) {
    if (error.keyword === 'oneOf') continue;
    const around = oneOfs.filter((o) => within(error, o.instancePath)).sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
    if (around === undefined) return describe(error);
    const deeper = errors.find((e) => e.keyword !== 'oneOf' && within(e, around.instancePath) && e.instancePath !== around.instancePath);
    return deeper === undefined ? describeOneOf(around) : describe(deeper);
  }
  const whole = oneOfs[0];
  return whole === undefined ? violation('', 'a NativeRequest object', describeValue(body)) : describeOneOf(whole);
}
