import type { SchemaManifest } from '../../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { fragmentCount } from '../fragments.ts';
import { MAX_SCHEMA_BYTES } from '../limits.ts';
import { sha256Hex } from '../sha256.ts';
import { NotCanonicalError, scanCanonicalJson, type CanonicalMember } from './canonical-scan.ts';

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
 * Checks reassembled bytes against their manifest: total length, schema_sha256, then a validating
 * parse that accepts only RFC 8785 (JCS) bytes with exactly the members input, operation, output (in
 * that, the canonical, order), the operation, and the input and output digests. Since the bytes are
 * canonical, the byte range of each member value is the JCS of that value, so its digest is taken
 * over the range instead of re-serialising a parsed copy (which cost more than the download).
 * Returns the document; `input` and `output` are parsed from their ranges on first use.
 */
export function verifySchemaDocument(manifest: SchemaManifest, document: Uint8Array): VerifiedSchema {
  if (document.length !== manifest.schema_bytes) {
    throw new ToolgraphError('TG_FRAGMENT_LENGTH_MISMATCH', `The reassembled schema is ${document.length} bytes; the manifest announces ${manifest.schema_bytes}.`);
  }
  const digest = sha256Hex(document);
  if (digest !== manifest.schema_sha256) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The reassembled schema hashes to ${digest}; the manifest announces schema_sha256 ${manifest.schema_sha256}.`);
  }
  return verifyCanonicalParts(manifest, document);
}

/** The checks after the whole-document digest: canonical form, shape, operation, part digests. */
function verifyCanonicalParts(manifest: SchemaManifest, document: Uint8Array): VerifiedSchema {
  let members: CanonicalMember[] | undefined;
  try {
    members = scanCanonicalJson(document);
  } catch (error) {
    if (!(error instanceof NotCanonicalError)) throw error;
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The schema matches its digest but is not canonical (RFC 8785) JSON: ${error.message}.`, { cause: error });
  }
  if (members?.length !== 3 || members[0]!.key !== 'input' || members[1]!.key !== 'operation' || members[2]!.key !== 'output') {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', 'The schema matches its digest but is not an {input, operation, output} document.');
  }
  const [inputRange, operationRange, outputRange] = members as [CanonicalMember, CanonicalMember, CanonicalMember];
  const bytes = Buffer.from(document.buffer, document.byteOffset, document.byteLength);
  const operation: unknown = JSON.parse(bytes.toString('utf8', operationRange.start, operationRange.end));
  if (operation !== manifest.operation) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The schema document names operation ${JSON.stringify(operation)}; the manifest names ${JSON.stringify(manifest.operation)}.`);
  }
  const input = sha256Hex(bytes.subarray(inputRange.start, inputRange.end));
  if (input !== manifest.input_schema_sha256) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The input schema hashes to ${input}; the manifest announces input_schema_sha256 ${manifest.input_schema_sha256}.`);
  }
  const output = sha256Hex(bytes.subarray(outputRange.start, outputRange.end));
  if (output !== manifest.output_schema_sha256) {
    throw new ToolgraphError('TG_DIGEST_MISMATCH', `The output schema hashes to ${output}; the manifest announces output_schema_sha256 ${manifest.output_schema_sha256}.`);
  }
  return lazySchema(manifest.operation, bytes, inputRange, outputRange);
}

/** The parts as values, parsed from their (verified) ranges only if someone asks. */
function lazySchema(operation: string, bytes: Buffer, inputRange: CanonicalMember, outputRange: CanonicalMember): VerifiedSchema {
  let input: { value: unknown } | undefined;
  let output: { value: unknown } | undefined;
  return {
    operation,
    get input() {
      input ??= { value: JSON.parse(bytes.toString('utf8', inputRange.start, inputRange.end)) };
      return input.value;
    },
    get output() {
      output ??= { value: JSON.parse(bytes.toString('utf8', outputRange.start, outputRange.end)) };
      return output.value;
    },
  };
}
