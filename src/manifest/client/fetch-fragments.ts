import { parseTemplate } from 'url-template';
import type { SchemaManifest } from '../../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { fragmentLength } from '../fragments.ts';
import { fetchBytes, HttpStatusError, type FetchBytesOptions } from './fetch-bytes.ts';
import { fetchPipelined, type Leftover } from './pipelined-fragments.ts';

export interface FetchFragmentsOptions extends Omit<FetchBytesOptions, 'maxBytes' | 'accept'> {
  /** Fragments in flight at once. */
  concurrency: number;
  /** Called with the bytes received so far after each fragment. */
  onProgress?: (bytesDone: number) => void;
  /**
   * First try HTTP/1.1 pipelining over this many raw keep-alive sockets (http: only), splitting
   * `concurrency` between them, and fetch only what that could not deliver the ordinary way.
   */
  pipelineSockets?: number;
  /** Called whenever bytes [0, end) of the document are all in (fragments are stored out of order). */
  onContiguous?: (document: Buffer, end: number) => void;
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
  const count = manifest.fragment_count;
  const urls = fragmentUrls((index) => template.expand({ index: String(index) }), count);
  const document = Buffer.allocUnsafe(manifest.schema_bytes);
  let done = 0;
  let failure: unknown;
  const received = new Uint8Array(count);
  let contiguous = 0;
  const stored = (index: number) => {
    done += fragmentLength(manifest.schema_bytes, index);
    options.onProgress?.(done);
    received[index] = 1;
    if (index !== contiguous || !options.onContiguous) return;
    while (contiguous < count && received[contiguous] === 1) contiguous++;
    // After the pending socket reads and request writes: the caller's work must not hold up the pipeline.
    scheduled ??= setImmediate(flush);
  };
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    options.onContiguous?.(document, Math.min(contiguous * 4096, manifest.schema_bytes));
  };

  let queue: Leftover[] = urls.map((_, index) => ({ index, attempts: 0, problem: '' }));
  const pipelineOrigin = options.pipelineSockets ? plainHttpOrigin(urls[0] ?? '') : undefined;
  if (pipelineOrigin !== undefined && count > 0) {
    const prefix = pipelineOrigin.length;
    const sockets = Math.min(options.pipelineSockets!, options.concurrency);
    queue = await fetchPipelined({
      origin: pipelineOrigin,
      count,
      target: (index) => {
        const url = urls[index]!;
        const target = url.slice(prefix);
        return url.startsWith(pipelineOrigin) && REQUEST_TARGET.test(target) ? target : undefined;
      },
      length: (index) => fragmentLength(manifest.schema_bytes, index),
      offset: (index) => index * 4096,
      document,
      sockets,
      // The concurrency option bounds requests in flight, whichever way they go.
      depth: Math.max(1, Math.floor(options.concurrency / sockets)),
      onFragment: stored,
    });
    queue.sort((a, b) => a.index - b.index);
  }

  const fetchOne = async ({ index, attempts, problem }: Leftover): Promise<void> => {
    const expected = fragmentLength(manifest.schema_bytes, index);
    const url = urls[index]!;
    let body: Buffer;
    try {
      body = await fetchBytes(url, {
        get: options.get, retries: options.retries, backoff: options.backoff, maxBytes: expected, accept: 'application/octet-stream',
        ...(attempts > 0 ? { attemptsUsed: attempts, lastProblem: problem } : {}),
      });
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
    stored(index);
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < queue.length) {
      const item = queue[next++]!;
      try {
        await fetchOne(item);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, queue.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (scheduled) flush();
  if (failure !== undefined) throw failure;
  return document;
}

/**
 * Every fragment URL. Expanding the template 4096 times costs several ms, so when a sentinel index
 * appears exactly once in its expansion and splicing reproduces the first and last expansions, the
 * rest are spliced too; otherwise each is expanded.
 */
function fragmentUrls(expand: (index: number) => string, count: number): string[] {
  const sentinel = 987654321012;
  const probe = expand(sentinel);
  const at = probe.indexOf(String(sentinel));
  if (at >= 0 && probe.indexOf(String(sentinel), at + 1) < 0) {
    const prefix = probe.slice(0, at);
    const suffix = probe.slice(at + String(sentinel).length);
    if (count === 0 || (expand(0) === `${prefix}0${suffix}` && expand(count - 1) === `${prefix}${count - 1}${suffix}`)) {
      return Array.from({ length: count }, (_, index) => `${prefix}${index}${suffix}`);
    }
  }
  return Array.from({ length: count }, (_, index) => expand(index));
}

/** A path and query that can go on a request line as they are. */
const REQUEST_TARGET = /^\/[!-"$-~]*$/;

/** `http://host[:port]` of a plain-HTTP URL without user info, as written; otherwise undefined. */
function plainHttpOrigin(url: string): string | undefined {
  const match = /^http:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?=\/)/.exec(url);
  return match?.[0];
}
