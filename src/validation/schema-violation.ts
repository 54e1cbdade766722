import type { ErrorObject } from 'ajv';
import { childPointer } from './json-pointer.ts';

/** A JSON Schema object, as the generated validators (compiled `verbose`) put it on their errors. */
export type SchemaObject = Readonly<Record<string, unknown>>;

/**
 * One ajv error, read once for every caller: where it is (an RFC 6901 pointer, escaped here and
 * nowhere else), which kind of rule broke, the subschema the place must satisfy and the value found.
 * The generated validators are compiled with `verbose: true`, so each error carries its data and
 * parent schema.
 */
export interface SchemaViolation {
  /** `missing` (required), `unknown` (additionalProperties), `invalid` (any other keyword). */
  readonly kind: 'missing' | 'unknown' | 'invalid';
  readonly keyword: string;
  /** The offending place: the property's own pointer for `missing` and `unknown`; `""` is the document. */
  readonly pointer: string;
  /** The pointer of the value the keyword was checked on (the object, for `missing` and `unknown`). */
  readonly instancePath: string;
  /** The property `missing` or `unknown` names. */
  readonly property: string | undefined;
  /** What the place must satisfy: the property's subschema for `missing`, the keyword's schema for `invalid`. */
  readonly schema: SchemaObject | undefined;
  /** The schema of the object, for `missing` and `unknown` (its `properties` say what is allowed). */
  readonly objectSchema: SchemaObject | undefined;
  /** The value at `pointer` (undefined for `missing`). */
  readonly value: unknown;
  /** The value at `instancePath`: the one the keyword was checked on. */
  readonly data: unknown;
  /** ajv's own sentence, e.g. "must be equal to one of the allowed values". */
  readonly message: string;
}

export function isSchemaObject(value: unknown): value is SchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function propertySchema(objectSchema: SchemaObject | undefined, name: string): SchemaObject | undefined {
  const properties = objectSchema?.['properties'];
  if (!isSchemaObject(properties) || !Object.hasOwn(properties, name)) return undefined;
  const schema = properties[name];
  return isSchemaObject(schema) ? schema : undefined;
}

/** Reads one ajv error (see SchemaViolation). */
export function schemaViolation(error: ErrorObject): SchemaViolation {
  const parent = isSchemaObject(error.parentSchema) ? error.parentSchema : undefined;
  const message = error.message ?? error.keyword;
  if (error.keyword === 'required' || error.keyword === 'additionalProperties') {
    const missing = error.keyword === 'required';
    const property = String(missing ? (error.params as { missingProperty: string }).missingProperty : (error.params as { additionalProperty: string }).additionalProperty);
    const data = isSchemaObject(error.data) ? error.data : undefined;
    return {
      kind: missing ? 'missing' : 'unknown',
      keyword: error.keyword,
      pointer: childPointer(error.instancePath, property),
      instancePath: error.instancePath,
      property,
      schema: missing ? propertySchema(parent, property) : undefined,
      objectSchema: parent,
      value: missing || data === undefined ? undefined : data[property],
      data: error.data,
      message,
    };
  }
  return { kind: 'invalid', keyword: error.keyword, pointer: error.instancePath, instancePath: error.instancePath, property: undefined, schema: parent, objectSchema: undefined, value: error.data, data: error.data, message };
}

/** Every ajv error of a failed validation, read (schemaViolation), in the validator's order. */
export function schemaViolations(errors: readonly ErrorObject[] | null | undefined): SchemaViolation[] {
  return (errors ?? []).map(schemaViolation);
}
