import { ToolgraphError } from '../../errors/index.ts';
import { backoffDelay, DEFAULT_BACKOFF, sleep, type BackoffOptions } from './backoff.ts';

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface FetchBytesOptions {
  fetch: FetchLike;
  /** Retries after the first attempt, for network errors, 5xx and 429. */
  retries: number;
  backoff: BackoffOptions;
  /** Bodies longer than this are cut off and reported with the length read so far (at least max + 1). */
  maxBytes: number;
  accept?: string;
}

export interface FetchedBytes {
  readonly status: number;
  readonly body: Buffer;
}

export const DEFAULT_FETCH_BYTES: Omit<FetchBytesOptions, 'maxBytes'> = {
  fetch: (url, init) => globalThis.fetch(url, init),
  retries: 3,
  backoff: DEFAULT_BACKOFF,
};

/** Thrown for an answer that retrying will not change (a 4xx other than 429). */
export class HttpStatusError extends Error {
  readonly status: number;
  readonly body: Buffer;
  constructor(url: string, status: number, body: Buffer) {
    super(`GET ${url} answered HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/**
 * GET with retries (exponential backoff with jitter) on network errors, 5xx and 429. A 2xx answer
 * comes back with its body read up to `maxBytes + 1`; any other final answer throws HttpStatusError
 * (4xx) or TG_FETCH_FAILED (retries used up).
 */
export async function fetchBytes(url: string, options: FetchBytesOptions): Promise<FetchedBytes> {
  let lastProblem = '';
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    if (attempt > 0) await sleep(backoffDelay(attempt, options.backoff));
    let response: Response;
    try {
      response = await options.fetch(url, options.accept ? { headers: { accept: options.accept } } : undefined);
    } catch (error) {
      lastProblem = describeNetworkError(error);
      continue;
    }
    if (response.status >= 200 && response.status < 300) {
      return { status: response.status, body: await readBounded(response, options.maxBytes) };
    }
    const body = await readBounded(response, 64 * 1024).catch(() => Buffer.alloc(0));
    if (response.status === 429 || response.status >= 500) {
      lastProblem = `HTTP ${response.status}`;
      continue;
    }
    throw new HttpStatusError(url, response.status, body);
  }
  throw new ToolgraphError('TG_FETCH_FAILED', `GET ${url} failed after ${options.retries + 1} attempt${options.retries === 0 ? '' : 's'}: ${lastProblem}.`, {
    details: { url, attempts: options.retries + 1 },
  });
}

/** Reads a body, stopping one byte past `maxBytes` so an oversized answer cannot exhaust memory. */
async function readBounded(response: Response, maxBytes: number): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength) : Buffer.concat(chunks, total);
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

/** True when an error means the server could not be reached at all (so a cached copy may stand in). */
export function isUnreachable(error: unknown): boolean {
  return error instanceof ToolgraphError && error.code === 'TG_FETCH_FAILED';
}
