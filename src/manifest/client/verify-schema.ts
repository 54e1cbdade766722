import { createHash } from 'node:crypto';
import type { SchemaManifest } from '../../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { fragmentCount } from '../fragments.ts';
import { MAX_SCHEMA_BYTES } from '../limits.ts';
import { CanonicalScanner, NotCanonicalError, type CanonicalMember } from './canonical-scan.ts';

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
  return new SchemaVerifier(manifest, document).finish();
}

/**
 * verifySchemaDocument in steps, so the work overlaps the download: `advance(n)` hashes and scans
 * bytes [0, n) once they are final (fragments arrive in order), `finish()` does the rest and makes
 * every check, in the same order and with the same errors as checking the whole buffer at once.
 */
export class SchemaVerifier {
  readonly #manifest: SchemaManifest;
  readonly #document: Uint8Array;
  readonly #hash = createHash('sha256');
  #hashed = 0;
  readonly #scanner: CanonicalScanner;

  constructor(manifest: SchemaManifest, document: Uint8Array) {
    this.#manifest = manifest;
    this.#document = document;
    this.#scanner = new CanonicalScanner(document);
  }

  advance(end: number): void {
    if (end <= this.#hashed || this.#document.length !== this.#manifest.schema_bytes) return;
    this.#hash.update(this.#document.subarray(this.#hashed, end));
    this.#hashed = end;
    this.#scanner.advance(end);
  }

  finish(): VerifiedSchema {
    const { manifest } = this;
    const document = this.#document;
    if (document.length !== manifest.schema_bytes) {
      throw new ToolgraphError('TG_FRAGMENT_LENGTH_MISMATCH', `The reassembled schema is ${document.length} bytes; the manifest announces ${manifest.schema_bytes}.`);
    }
    this.advance(document.length);
    const digest = this.#hash.digest('hex');
    if (digest !== manifest.schema_sha256) {
      throw new ToolgraphError('TG_DIGEST_MISMATCH', `The reassembled schema hashes to ${digest}; the manifest announces schema_sha256 ${manifest.schema_sha256}.`);
    }
    let members: CanonicalMember[] | undefined;
    try {
      members = this.#scanner.finish();
    } catch (error) {
      if (!(error instanceof NotCanonicalError)) throw error;
      throw new ToolgraphError('TG_DIGEST_MISMATCH', `The schema matches its digest but is not canonical (RFC 8785) JSON: ${error.message}.`, { cause: error });
    }
    if (members?.length !== 3 || members[0]!.key !== 'input' || members[1]!.key !== 'operation' || members[2]!.key !== 'output') {
      throw new ToolgraphError('TG_DIGEST_MISMATCH', 'The schema matches its digest but is not an {input, operation, output} document.');
    }
    const [input, operation, output] = members as [CanonicalMember, CanonicalMember, CanonicalMember];
    const bytes = Buffer.from(document.buffer, document.byteOffset, document.byteLength);
    const name: unknown = JSON.parse(bytes.toString('utf8', operation.start, operation.end));
    if (name !== manifest.operation) {
      throw new ToolgraphError('TG_DIGEST_MISMATCH', `The schema document names operation ${JSON.stringify(name)}; the manifest names ${JSON.stringify(manifest.operation)}.`);
    }
    if (input.sha256 !== manifest.input_schema_sha256) {
      throw new ToolgraphError('TG_DIGEST_MISMATCH', `The input schema hashes to ${input.sha256}; the manifest announces input_schema_sha256 ${manifest.input_schema_sha256}.`);
    }
    if (output.sha256 !== manifest.output_schema_sha256) {
      throw new ToolgraphError('TG_DIGEST_MISMATCH', `The output schema hashes to ${output.sha256}; the manifest announces output_schema_sha256 ${manifest.output_schema_sha256}.`);
    }
    return lazySchema(manifest.operation, bytes, input, output);
  }

  get manifest(): SchemaManifest {
    return this.#manifest;
  }
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
