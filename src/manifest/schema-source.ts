import type { JsonValue } from './canonical-json.ts';

/** A JSON Schema (2020-12) as a plain JSON object. */
export type JsonSchema = { [key: string]: JsonValue };

/** One operation of a source of truth, before canonicalisation. */
export interface OperationSchema {
  /** The name as the source gives it; checked, never rewritten. */
  readonly operation: string;
  /** Free text for search and listings (may be empty). */
  readonly description: string;
  readonly input: JsonSchema;
  readonly output: JsonSchema;
}

/**
 * A source of truth the catalogue draws operations from: the OpenAPI document, the graph SDL, the
 * tool server's actions. A new kind of source only has to produce this shape.
 */
export interface SchemaSource {
  /** Unique in a catalogue; the first part of every alias (see docs/catalogue.md). */
  readonly name: string;
  /** SHA-256 of the bytes of the source document. */
  readonly sourceSha256: string;
  readonly operations: readonly OperationSchema[];
}
