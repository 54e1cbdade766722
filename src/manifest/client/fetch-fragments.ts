import { parseTemplate } from 'url-template';
import type { SchemaManifest } from '../../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { fragmentLength } from '../fragments.ts';
import { fetchBytes, HttpStatusError, type FetchBytesOptions } from './fetch-bytes.ts';

export interface FetchFragmentsOptions extends Omit<FetchBytesOptions, 'maxBytes' | 'accept'> {
  /** Fragments in flight at once. */
  concurrency: number;
  /** Called with the bytes received so far after each fragment. */
  onProgress?: (bytesDone: number) => void;
}

/**
 * Downloads every fragment of a manifest (RFC 6570 expansion of `fragment_uri_template` with
 * `{index}`), at most `concurrency` at a time, each retried on transient failures, into one buffer
 * of `schema_bytes`. A fragment that is not exactly 4096 bytes (the last: the remainder) fails with
 * TG_FRAGMENT_LENGTH_MISMATCH; a missing one with TG_FRAGMENT_NOT_FOUND. The first failure stops
 * new downloads.
 */
export async function fetchFragments(manifest: SchemaManifest, options: FetchFragmentsOptions): Promise<Buffer> {
  const template = parseTemplate(manifest.fragment_uri_template);
  const document = Buffer.allocUnsafe(manifest.schema_bytes);
  let next = 0;
  let done = 0;
  let failure: unknown;

  const fetchOne = async (index: number): Promise<void> => {
    const expected = fragmentLength(manifest.schema_bytes, index);
    const url = template.expand({ index: String(index) });
    let body: Buffer;
    try {
      body = await fetchBytes(url, { get: options.get, retries: options.retries, backoff: options.backoff, maxBytes: expected, accept: 'application/octet-stream' });
    } catch (error) {
      if (error instanceof HttpStatusError && error.status === 404) {
        throw new ToolgraphError('TG_FRAGMENT_NOT_FOUND', `Fragment ${index} of ${manifest.fragment_count} is missing (HTTP 404 from ${url}).`);
      }
      if (error instanceof HttpStatusError) {
        throw new ToolgraphError('TG_FETCH_FAILED', `Fragment ${index}: ${error.message}.`, { details: { url, status: error.status } });
      }
      throw error;
    }
    if (body.length !== expected) {
      throw new ToolgraphError('TG_FRAGMENT_LENGTH_MISMATCH', `Fragment ${index} is ${body.length > expected ? `longer than ${expected}` : `${body.length}`} bytes; expected ${expected}.`, {
        details: { index, expected },
      });
    }
    body.copy(document, index * 4096);
    done += expected;
    options.onProgress?.(done);
  };

  const worker = async (): Promise<void> => {
    while (failure === undefined && next < manifest.fragment_count) {
      const index = next++;
      try {
        await fetchOne(index);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, manifest.fragment_count));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure !== undefined) throw failure;
  return document;
}
