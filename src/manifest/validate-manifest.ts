import type { ErrorObject } from 'ajv';
import type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
import { validateSchemaManifest } from '../../generated/validators/schema-manifest.ts';
import { ToolgraphError, describeValue } from '../errors/index.ts';

/** One broken rule of a SchemaManifest: where (JSON pointer), what the schema wants, and what came. */
export interface ManifestViolation {
  /** RFC 6901 pointer of the field; `""` is the document itself. */
  pointer: string;
  expected: string;
  got: string;
  /** `pointer: expected …, got …`, the form used in error messages. */
  text: string;
}

type SubSchema = Record<string, unknown>;

/** True when `value` is a valid SchemaManifest (the generated ajv validator, JSON Schema 2020-12). */
export function isSchemaManifest(value: unknown): value is SchemaManifest {
  return validateSchemaManifest(value);
}

/**
 * Returns `value` typed as a SchemaManifest, or throws TG_MANIFEST_INVALID naming every violation:
 * the JSON pointer of the field, what was expected and what came.
 */
export function assertSchemaManifest(value: unknown): SchemaManifest {
  if (validateSchemaManifest(value)) return value;
  const violations = describeManifestErrors(validateSchemaManifest.errors);
  const count = violations.length === 1 ? '1 violation' : `${violations.length} violations`;
  throw new ToolgraphError('TG_MANIFEST_INVALID', `SchemaManifest is invalid (${count}): ${violations.map((v) => v.text).join('; ')}.`, {
    details: { violations: violations.map(({ pointer, expected, got }) => ({ pointer, expected, got })) },
  });
}

/**
 * Turns ajv errors (from a validator generated with `verbose: true`) into one violation per field.
 * Keyword errors on the same field collapse into one, described by the field's whole subschema, so a
 * message reads "an integer from 1 to 16777216" rather than listing `minimum` and `maximum` apart.
 */
export function describeManifestErrors(errors: readonly ErrorObject[] | null | undefined): ManifestViolation[] {
  const byPointer = new Map<string, ManifestViolation>();
  for (const error of errors ?? []) {
    const violation = describeError(error);
    if (!byPointer.has(violation.pointer)) byPointer.set(violation.pointer, violation);
  }
  return [...byPointer.values()];
}

function describeError(error: ErrorObject): ManifestViolation {
  if (error.keyword === 'required') {
    const name = String((error.params as { missingProperty: string }).missingProperty);
    return violation(childPointer(error.instancePath, name), `required property ${JSON.stringify(name)}`, 'no such property');
  }
  if (error.keyword === 'additionalProperties') {
    const name = String((error.params as { additionalProperty: string }).additionalProperty);
    const data = error.data as Record<string, unknown> | undefined;
    return violation(childPointer(error.instancePath, name), `no property ${JSON.stringify(name)}`, describeValue(data?.[name]));
  }
  const schema = isSubSchema(error.parentSchema) ? error.parentSchema : undefined;
  const expected = schema === undefined ? (error.message ?? error.keyword) : describeSchema(schema);
  return violation(error.instancePath, expected, describeValue(error.data));
}

function violation(pointer: string, expected: string, got: string): ManifestViolation {
  return { pointer, expected, got, text: `${pointer === '' ? '(root)' : pointer}: expected ${expected}, got ${got}` };
}

function childPointer(parent: string, name: string): string {
  return `${parent}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function isSubSchema(value: unknown): value is SubSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A phrase for what a subschema accepts, e.g. `a string of at most 128 characters matching ^…$`. */
function describeSchema(schema: SubSchema): string {
  if ('const' in schema) return `exactly ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const type = schema.type;
  if (type === 'integer' || type === 'number') return describeNumber(type, schema);
  if (type === 'string') {
    const parts = ['a string'];
    const min = schema.minLength;
    const max = schema.maxLength;
    if (typeof min === 'number' && typeof max === 'number') parts.push(`of ${min} to ${max} characters`);
    else if (typeof max === 'number') parts.push(`of at most ${max} characters`);
    else if (typeof min === 'number') parts.push(`of at least ${min} characters`);
    if (typeof schema.pattern === 'string') parts.push(`matching ${schema.pattern}`);
    return parts.join(' ');
  }
  if (type === 'object') return 'an object';
  if (type === 'array') return 'an array';
  if (type === 'boolean') return 'a boolean';
  if (type === 'null') return 'null';
  return 'a valid value';
}

function describeNumber(type: 'integer' | 'number', schema: SubSchema): string {
  const noun = type === 'integer' ? 'integer' : 'number';
  const article = type === 'integer' ? 'an' : 'a';
  const min = schema.minimum;
  const max = schema.maximum;
  if (typeof min === 'number' && typeof max === 'number') {
    return min === max ? `the ${noun} ${min}` : `${article} ${noun} from ${min} to ${max}`;
  }
  if (typeof min === 'number') return `${article} ${noun} of at least ${min}`;
  if (typeof max === 'number') return `${article} ${noun} of at most ${max}`;
  return `${article} ${noun}`;
}

