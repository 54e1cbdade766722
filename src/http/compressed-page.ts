import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { preferredCoding, type ContentCoding } from './accept-encoding.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Brotli quality 5: GraphiQL's 8.6 MiB page becomes about 1.9 MiB in under a second of one
 * thread-pool thread; quality 11 saves another 0.2 MiB for 25 s of CPU, which a first page load
 * should not wait for.
 */
const BROTLI_QUALITY = 5;

export interface CompressedPageOptions {
  /** Renders the page; called once, on the first request. */
  readonly render: () => string;
  readonly contentType: string;
  readonly cacheControl: string;
}

export interface CompressedPage {
  /** Answers with the page in the coding Accept-Encoding prefers, or 304 when If-None-Match holds its ETag. */
  send(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Whether If-None-Match names `etag` (weak comparison, as RFC 9110 §13.1.2 asks), or is `*`. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * A page rendered once, and compressed once per coding a client asks for (off the event loop, on
 * zlib's thread pool): never per request. Each coding is its own representation with its own strong
 * ETag (the page's SHA-256 plus the coding), `Vary: Accept-Encoding` tells caches the body depends on
 * that header, and a matching If-None-Match gets 304 with no body.
 */
export function createCompressedPage(options: CompressedPageOptions): CompressedPage {
  let identity: Buffer | undefined;
  let digest = '';
  const encoded = new Map<Exclude<ContentCoding, 'identity'>, Promise<Buffer>>();

  function page(): Buffer {
    if (identity === undefined) {
      identity = Buffer.from(options.render(), 'utf8');
      digest = createHash('sha256').update(identity).digest('base64url').slice(0, 32);
    }
    return identity;
  }

  function body(coding: ContentCoding): Promise<Buffer> {
    const plain = page();
    if (coding === 'identity') return Promise.resolve(plain);
    let pending = encoded.get(coding);
    if (pending === undefined) {
      pending = coding === 'br'
        ? brotli(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })
        : gzipAsync(plain, { level: 6 });
      // A failed compression is not kept: the next request tries again.
      pending.catch(() => encoded.delete(coding));
      encoded.set(coding, pending);
    }
    return pending;
  }

  return {
    async send(req, res) {
      let coding = preferredCoding(req.headers['accept-encoding']);
      page();
      const headersFor = (c: ContentCoding): Record<string, string> => ({
        etag: c === 'identity' ? `"${digest}"` : `"${digest}-${c}"`,
        vary: 'Accept-Encoding',
        'cache-control': options.cacheControl,
      });
      if (matchesIfNoneMatch(req.headers['if-none-match'], headersFor(coding).etag!)) {
        res.writeHead(304, headersFor(coding));
        res.end();
        return;
      }
      let payload: Buffer;
      try {
        payload = await body(coding);
      } catch {
        coding = 'identity';
        payload = page();
      }
      const headers: Record<string, string | number> = { 'content-type': options.contentType, 'content-length': payload.length, ...headersFor(coding) };
      if (coding !== 'identity') headers['content-encoding'] = coding;
      res.writeHead(200, headers);
      res.end(payload);
    },
  };
}
