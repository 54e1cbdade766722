import type { ServerResponse } from 'node:http';

/** What a request came to, as a service saw it: `ok` or a TG_* code, and the limit a budget refusal names. */
export interface ResponseOutcome {
  readonly code: string;
  /** For TG_QUERY_BUDGET_EXCEEDED, TG_QUERY_TOO_COMPLEX, TG_WRITE_TOO_LARGE: the limit or cap (`maxRows`, `depth`, …). */
  readonly limit?: string;
}

const OUTCOME = Symbol('toolgraph.outcome');
type Noted = ServerResponse & { [OUTCOME]?: ResponseOutcome };

/**
 * Notes on the response what its request came to when that is not plain from the status: a refusal
 * (sendError notes every one) or an error carried in a 200 body (GraphQL errors, a NativeResponse
 * error). Readers (the metrics) take `ok` for an unnoted response below 400. One property write;
 * nothing on the success path.
 */
export function noteOutcome(res: ServerResponse, code: string, details?: unknown): void {
  const limit = (details as { limit?: unknown } | undefined)?.limit;
  (res as Noted)[OUTCOME] = typeof limit === 'string' ? { code, limit } : { code };
}

/** The outcome noted on the response, if any. */
export function outcomeOf(res: ServerResponse): ResponseOutcome | undefined {
  return (res as Noted)[OUTCOME];
}
