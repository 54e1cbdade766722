import { ToolgraphError } from '../../errors/index.ts';
import { backoffDelay, sleep, type BackoffOptions } from './backoff.ts';
import type { HttpGet } from './http-get.ts';

export interface FetchBytesOptions {
  get: HttpGet;
  /** Retries after the first attempt, for network errors, 5xx and 429. */
  retries: number;
  backoff: BackoffOptions;
  /** Bodies longer than this are cut off one byte past it. */
  maxBytes: number;
  accept?: string;
  /** Attempts already made elsewhere (they count against `retries`), and what went wrong last. */
  attemptsUsed?: number;
  lastProblem?: string;
}

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
 * GET with retries (exponential backoff with jitter) on network errors, 5xx and 429. Returns the
 * body of a 2xx answer; any other final answer throws HttpStatusError (4xx) or TG_FETCH_FAILED
 * (retries used up).
 */
export async function fetchBytes(url: string, options: FetchBytesOptions): Promise<Buffer> {
  let lastProblem = options.lastProblem ?? '';
  for (let attempt = options.attemptsUsed ?? 0; attempt <= options.retries; attempt++) {
    if (attempt > 0) await sleep(backoffDelay(attempt, options.backoff));
    let status: number;
    let body: Buffer;
    try {
      ({ status, body } = await options.get(url, { maxBytes: options.maxBytes, ...(options.accept ? { accept: options.accept } : {}) }));
    } catch (error) {
      lastProblem = describeNetworkError(error);
      continue;
    }
    if (status >= 200 && status < 300) return body;
    if (status === 429 || status >= 500) {
      lastProblem = `HTTP ${status}`;
      continue;
    }
    throw new HttpStatusError(url, status, body);
  }
  throw new ToolgraphError('TG_FETCH_FAILED', `GET ${url} failed after ${options.retries + 1} attempt${options.retries === 0 ? '' : 's'}: ${lastProblem}.`, {
    details: { url, attempts: options.retries + 1 },
  });
}

function describeNetworkError(error: unknown): string {
  const own = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return own.cause?.code ?? own.code ?? own.cause?.message ?? own.message ?? String(error);
}

/** True when an error means the server could not be reached at all (so a cached copy may stand in). */
export function isUnreachable(error: unknown): boolean {
  return error instanceof ToolgraphError && error.code === 'TG_FETCH_FAILED';
}
