import type { ToolgraphError } from '../../errors/index.ts';

/** The parameters of an RFC 6750 §3 `Bearer` challenge (plus RFC 9728's `resource_metadata`). */
export interface BearerChallenge {
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  readonly description?: string;
  /** Space-separated scopes the request needs. */
  readonly scope?: string;
  /** URL of the protected resource metadata document (RFC 9728 §5.1). */
  readonly resourceMetadata?: string;
}

/**
 * RFC 6750 allows only %x20-21 / %x23-5B / %x5D-7E inside these quoted values: no `"`, no `\`,
 * nothing outside printable ASCII. Descriptions are our own sentences, so this only swaps quotes
 * and stray characters and caps the length.
 */
function quotable(text: string, max = 300): string {
  const cleaned = text.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20-\x7e]/g, '?');
  return cleaned.length <= max ? cleaned : `${cleaned.slice(0, max - 3)}...`;
}

export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error="${challenge.error}"`);
  if (challenge.description) params.push(`error_description="${quotable(challenge.description)}"`);
  if (challenge.scope) params.push(`scope="${quotable(challenge.scope, 1000)}"`);
  if (challenge.resourceMetadata) params.push(`resource_metadata="${quotable(challenge.resourceMetadata, 2000)}"`);
  return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
}

/**
 * The scope a 403 asks for: the first of the scopes that would have allowed the operation, which
 * `requireScope` lists least-privileged first (`kg:read` before `kg:admin`). MCP's 2026-07-28
 * revision has the challenge name what the operation needs, not what the token already holds.
 */
function neededScope(error: ToolgraphError): string | undefined {
  const required = error.details?.['required'];
  if (Array.isArray(required) && typeof required[0] === 'string') return required[0];
  return undefined;
}

/**
 * The `WWW-Authenticate` header for an auth refusal: 401 TG_UNAUTHENTICATED is `invalid_token`,
 * 403 TG_INSUFFICIENT_SCOPE is `insufficient_scope` with the needed `scope`; both point at the
 * resource metadata. Undefined for any other error.
 */
export function challengeHeaderFor(error: ToolgraphError, resourceMetadata: string | undefined): Record<string, string> | undefined {
  const base = resourceMetadata === undefined ? {} : { resourceMetadata };
  if (error.code === 'TG_UNAUTHENTICATED') {
    return { 'www-authenticate': bearerChallenge({ error: 'invalid_token', description: error.message, ...base }) };
  }
  if (error.code === 'TG_INSUFFICIENT_SCOPE') {
    const scope = neededScope(error);
    return { 'www-authenticate': bearerChallenge({ error: 'insufficient_scope', description: error.message, ...(scope ? { scope } : {}), ...base }) };
  }
  return undefined;
}
