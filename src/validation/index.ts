export { childPointer, decodePointerSegment, encodePointerSegment, pointerSegments, valueAtPointer } from './json-pointer.ts';
export { isSchemaObject, schemaViolation, schemaViolations } from './schema-violation.ts';
export type { SchemaObject } from './schema-violation.ts';
export { describeSchema } from './describe-schema.ts';
export { fieldViolations } from './field-violations.ts';
export { MAX_JSON_DEPTH, jsonTooDeep, jsonTooDeepAt } from './json-depth.ts';
