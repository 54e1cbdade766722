import { canonicalJson, canonicalJsonOfParsed } from './canonical-json.ts';
import type { OperationSchema } from './schema-source.ts';
import { sha256Hex } from '../digest/index.ts';

/** The canonical schema document of one operation and its three digests. */
export interface CanonicalSchema {
  /** UTF-8 bytes of the JCS serialisation of `{operation, input, output}`. */
  readonly document: Buffer;
  readonly schemaSha256: string;
  readonly inputSchemaSha256: string;
  readonly outputSchemaSha256: string;
}

/**
 * Builds the canonical document `{operation, input, output}` (RFC 8785) and its digests. The input
 * and output digests are of their own JCS bytes, so a client can check them after parsing the whole.
 */
export function canonicalSchema(operation: Pick<OperationSchema, 'operation' | 'input' | 'output'>): CanonicalSchema {
  const text = canonicalJson({ operation: operation.operation, input: operation.input, output: operation.output });
  const document = Buffer.from(text, 'utf8');
  return {
    document,
    schemaSha256: sha256Hex(document),
    inputSchemaSha256: sha256Hex(canonicalJson(operation.input)),
    outputSchemaSha256: sha256Hex(canonicalJson(operation.output)),
  };
}

/** JCS digest of a parsed part (input or output) of a schema document, as a client recomputes it. */
export function partDigest(part: unknown): string {
  return sha256Hex(canonicalJsonOfParsed(part));
}
