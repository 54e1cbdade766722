import type { ErrorObject } from 'ajv';
import { describeValue } from '../errors/index.ts';
import { describeSchema } from './describe-schema.ts';
import { schemaViolation } from './schema-violation.ts';

/** One broken rule of a document, per field: where (JSON pointer), what the schema wants, and what came. */
export interface FieldViolation {
  /** RFC 6901 pointer of the field; `""` is the document itself. */
  readonly pointer: string;
  readonly expected: string;
  readonly got: string;
  /** `pointer: expected …, got …`, the form used in error messages (`(root)` for the document). */
  readonly text: string;
}

/**
 * Every violation of a failed validation, one per field in the validator's order. Keyword errors on
 * the same field collapse into one, described by the field's whole subschema, so a message reads
 * "an integer from 1 to 16777216" rather than listing `minimum` and `maximum` apart.
 */
export function fieldViolations(errors: readonly ErrorObject[] | null | undefined): FieldViolation[] {
  const byPointer = new Map<string, FieldViolation>();
  for (const error of errors ?? []) {
    const v = schemaViolation(error);
    if (byPointer.has(v.pointer)) continue;
    if (v.kind === 'missing') byPointer.set(v.pointer, field(v.pointer, `required property ${JSON.stringify(v.property)}`, 'no such property'));
    else if (v.kind === 'unknown') byPointer.set(v.pointer, field(v.pointer, `no property ${JSON.stringify(v.property)}`, describeValue(v.value)));
    else byPointer.set(v.pointer, field(v.pointer, v.schema === undefined ? v.message : describeSchema(v.schema), describeValue(v.value)));
  }
  return [...byPointer.values()];
}

function field(pointer: string, expected: string, got: string): FieldViolation {
  return { pointer, expected, got, text: `${pointer === '' ? '(root)' : pointer}: expected ${expected}, got ${got}` };
}
