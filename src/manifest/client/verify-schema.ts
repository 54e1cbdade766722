import type { SchemaManifest } from '../../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { partDigest } from '../canonical-schema.ts';
import { fragmentCount } from '../fragments.ts';
import { MAX_SCHEMA_BYTES } from '../limits.ts';
import { sha256Hex } from '../sha256.ts';

/** A verified canonical schema document. */
export interface VerifiedSchema {
  readonly operation: string;
  readonly input: unknown;
  readonly output: unknown;
}

/**
 * Refuses a manifest that announces more than 16 MiB, or a fragment count other than
 * ceil(schema_bytes / 4096), before anything is downloaded.
 */
export function assertFetchable(manifest: SchemaManifest): void {
  if (manifest.schema_bytes > MAX_SCHEMA_BYTES) {
    throw new ToolgraphError('TG_SCHEMA_TOO_LARGE', `schema_bytes is ${manifest.schema_bytes}; at most ${MAX_SCHEMA_BYTES} (16 MiB) is fetched. Nothing was downloaded.`);
  }
  const expected = fragmentCount(manifest.schema_bytes);
  if (manifest.fragment_count !== expected) {
    throw new ToolgraphError('TG_SCHEMA_TOO_LARGE', `fragment_count is ${manifest.fragment_count}; expected ceil(${manifest.schema_bytes} / 4096) = ${expected}. Nothing was downloaded.`);
  }
}

/**
 * Checks reassembled bytes against their manifest: total length, schema_sha256, JSON parse, then the
 * JCS digests of the parsed input and output. Returns the parsed document.
 */
export function verifySchemaDocument(manifest: SchemaManifest, document: Uint8Array): VerifiedSchema {
  if (document.length !== manifest.schema_bytes) {
    throw new ToolgraphError('TG_FRAGMENT_LENGTH_MISMATCH', `The reassembled schema is ${document.length} bytes; the manifest announces ${manifest.schema_bytes}.`);
  }
  const digest = sha256Hex(document);
  if (digest !== manifest.schema_sha256) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The reassembled schema hashes to ${digest}; the manifest announces schema_sha256 ${manifest.schema_sha256}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(document.buffer, document.byteOffset, document.byteLength).toString('utf8'));
  } catch (error) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The schema matches its digest but is not JSON (${(error as Error).message}).`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !('input' in parsed) || !('output' in parsed)) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', 'The schema matches its digest but is not an {operation, input, output} document.');
  }
  const doc = parsed as { operation?: unknown; input: unknown; output: unknown };
  if (doc.operation !== manifest.operation) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The schema document names operation ${JSON.stringify(doc.operation)}; the manifest names ${JSON.stringify(manifest.operation)}.`);
  }
  const input = partDigest(doc.input);
  if (input !== manifest.input_schema_sha256) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The input schema hashes to ${input}; the manifest announces input_schema_sha256 ${manifest.input_schema_sha256}.`);
  }
  const output = partDigest(doc.output);
  if (output !== manifest.output_schema_sha256) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The output schema hashes to ${output}; the manifest announces output_schema_sha256 ${manifest.output_schema_sha256}.`);
  }
  return { operation: manifest.operation, input: doc.input, output: doc.output };
}
