import type { ErrorObject } from 'ajv';
import { describeValue } from '../../errors/index.ts';

/** One broken rule of a NativeRequest, as error messages and details show it. */
export interface RequestViolation {
  /** RFC 6901 pointer from the validator; `""` is the body itself. */
  readonly pointer: string;
  /** The same place in dotted form (`method.Cypher.query`), or `body`. */
  readonly field: string;
  readonly expected: string;
  readonly got: string;
}

type Schema = Record<string, unknown>;

/** ajv says only "must match exactly one schema in oneOf"; these say what the alternatives are. */
const ONE_OF_EXPECTED: Readonly<Record<string, string>> = {
  '/method': 'an object with exactly one of GraphQl or Cypher',
};

/** Phrases for `$ref`s the validator reports unresolved (e.g. a missing `method`). */
const REF_EXPECTED: Readonly<Record<string, string>> = {
  NativeMethod: 'an object with exactly one of GraphQl or Cypher',
  U64: 'a positive unsigned 64-bit integer',
};

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function decode(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function encode(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function fieldOf(pointer: string): string {
  return pointer === '' ? 'body' : pointer.slice(1).split('/').map(decode).join('.');
}

function at(body: unknown, pointer: string): unknown {
  let value = body;
  for (const segment of pointer === '' ? [] : pointer.slice(1).split('/')) {
    if (!isSchema(value)) return undefined;
    value = value[decode(segment)];
  }
  return value;
}

/** What a (sub)schema accepts, in words: "a non-empty string", "an object or null", … */
function expectedOf(schema: unknown, pointer: string): string {
  if (pointer === '') return 'a NativeRequest object';
  if (!isSchema(schema)) return 'a valid value';
  if (typeof schema['$ref'] === 'string') {
    const name = schema['$ref'].split('/').at(-1) ?? '';
    return REF_EXPECTED[name] ?? `a ${name}`;
  }
  const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : typeof schema['type'] === 'string' ? [schema['type']] : [];
  const words = types.map((type) => {
    if (type === 'string') return schema['minLength'] === 1 ? 'a non-empty string' : 'a string';
    if (type === 'object') {
      const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
      return required.length > 0 ? `an object with ${required.join(', ')}` : 'an object';
    }
    return type === 'null' ? 'null' : `a${/^[aeiou]/.test(type) ? 'n' : ''} ${type}`;
  });
  return words.length > 0 ? words.join(' or ') : 'a valid value';
}

function violation(pointer: string, expected: string, got: string): RequestViolation {
  return { pointer, field: fieldOf(pointer), expected, got };
}

function describe(error: ErrorObject, body: unknown): RequestViolation {
  const parent = isSchema(error.parentSchema) ? error.parentSchema : {};
  const properties = isSchema(parent['properties']) ? parent['properties'] : {};
  if (error.keyword === 'required') {
    const name = String((error.params as { missingProperty: string }).missingProperty);
    const pointer = `${error.instancePath}/${encode(name)}`;
    return violation(pointer, expectedOf(properties[name], pointer), 'nothing');
  }
  if (error.keyword === 'additionalProperties') {
    const name = String((error.params as { additionalProperty: string }).additionalProperty);
    const pointer = `${error.instancePath}/${encode(name)}`;
    return violation(pointer, `no such field (allowed: ${Object.keys(properties).join(', ')})`, describeValue(at(body, pointer)));
  }
  return violation(error.instancePath, expectedOf(parent, error.instancePath), describeValue(at(body, error.instancePath)));
}

function describeOneOf(pointer: string, body: unknown, schema: unknown): RequestViolation {
  const data = at(body, pointer);
  let got = describeValue(data);
  if (isSchema(data)) {
    const keys = Object.keys(data);
    got = keys.length === 0 ? 'an empty object' : `keys ${keys.join(', ')}`;
  }
  const description = isSchema(schema) && typeof schema['description'] === 'string' ? schema['description'] : 'one of the alternatives';
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
    if (around === undefined) return describe(error, body);
    const deeper = errors.find((e) => e.keyword !== 'oneOf' && within(e, around.instancePath) && e.instancePath !== around.instancePath);
    return deeper === undefined ? describeOneOf(around.instancePath, body, around.parentSchema) : describe(deeper, body);
  }
  const whole = oneOfs[0];
  return whole === undefined ? violation('', 'a NativeRequest object', describeValue(body)) : describeOneOf(whole.instancePath, body, whole.parentSchema);
}
