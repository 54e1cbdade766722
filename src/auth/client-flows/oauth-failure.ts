import * as oidc from 'openid-client';
import { scrubString } from '../../log/index.ts';

/**
 * What went wrong in a grant made through openid-client, in words fit for a message: the server's
 * HTTP status and OAuth error when it answered with one, else why it could not be reached. OAuth
 * error descriptions name the failing check ("audience is not a service registered…") and are
 * scrubbed anyway, since a server may echo what it was sent.
 */
export interface OAuthFailure {
  /** The HTTP status of an OAuth error answer; undefined when there was no such answer. */
  readonly status: number | undefined;
  /** The OAuth `error` code (`invalid_grant`, `invalid_client`…), when the server sent one. */
  readonly error: string | undefined;
  /** One sentence: `HTTP 400 invalid_target (audience is not …)`, or `ECONNREFUSED`. */
  readonly reason: string;
}

function networkCause(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return undefined;
}

export function describeOAuthFailure(error: unknown): OAuthFailure {
  if (error instanceof oidc.ResponseBodyError) {
    const description = error.error_description ? ` (${scrubString(error.error_description).slice(0, 300)})` : '';
    return { status: error.status, error: error.error, reason: `HTTP ${error.status} ${error.error}${description}` };
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const code = challenge?.parameters.error;
    const description = challenge?.parameters.error_description ? ` (${scrubString(challenge.parameters.error_description).slice(0, 300)})` : '';
    return { status: error.status, error: code, reason: `HTTP ${error.status}${code ? ` ${code}` : ''}${description}` };
  }
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return { status: undefined, error: undefined, reason: 'no answer in time' };
  const network = networkCause(error);
  if (error instanceof TypeError && network) return { status: undefined, error: undefined, reason: `the server cannot be reached (${network})` };
  // openid-client's own checks (an unexpected status, a malformed answer) say what they expected.
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { cause?: unknown } | undefined)?.cause instanceof Response ? ((error as { cause: Response }).cause.status) : undefined;
  return { status: undefined, error: undefined, reason: scrubString(`${message}${status === undefined ? '' : ` (HTTP ${status})`}`).slice(0, 300) };
}
