import { ToolgraphError } from '../../errors/index.ts';
import { issuerUrlProblem } from './issuer-url.ts';

/** What the auth layer needs from the IdP's discovery document, plus the whole document. */
export interface IssuerMetadata {
  /** The issuer identifier every token's `iss` must equal. */
  readonly issuer: string;
  readonly jwksUri: string;
  /** The validated discovery document as served (token_endpoint and the rest, for later users). */
  readonly document: Readonly<Record<string, unknown>>;
}

export interface DiscoverOptions {
  /** Default 5000 ms. */
  readonly timeoutMs?: number;
}

const OIDC_SUFFIX = '/.well-known/openid-configuration';
const OAUTH_PREFIX = '/.well-known/oauth-authorization-server';

function failed(configUrl: string, reason: string, cause?: unknown): ToolgraphError {
  return new ToolgraphError('TG_OIDC_DISCOVERY_FAILED', `OIDC discovery at OIDC_CONFIG_URL ${configUrl} failed: ${reason}.`, {
    details: { setting: 'OIDC_CONFIG_URL' },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The issuer the document must name: OpenID Connect Discovery §4.3 (the URL minus
 * `/.well-known/openid-configuration`) or RFC 8414 §3 (the well-known segment removed from after the
 * host). Any other URL form is not checked against.
 */
function expectedIssuer(configUrl: URL): string | undefined {
  if (configUrl.pathname.endsWith(OIDC_SUFFIX)) return `${configUrl.origin}${configUrl.pathname.slice(0, -OIDC_SUFFIX.length)}`;
  if (configUrl.pathname === OAUTH_PREFIX || configUrl.pathname.startsWith(`${OAUTH_PREFIX}/`)) return `${configUrl.origin}${configUrl.pathname.slice(OAUTH_PREFIX.length)}`;
  return undefined;
}

/** fetch says only "fetch failed"; the system error (ECONNREFUSED, ENOTFOUND) is in its cause. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return typeof cause?.message === 'string' ? cause.message : (error as Error).message;
}

const withoutTrailingSlash = (s: string) => (s.endsWith('/') ? s.slice(0, -1) : s);

/**
 * Fetches and validates the discovery document at OIDC_CONFIG_URL once, at start-up. Redirects are
 * not followed (the configured URL must be the document's own); every URL in play must pass
 * `issuerUrlProblem` (https, or http on loopback).
 */
export async function discoverIssuer(configUrl: string, options: DiscoverOptions = {}): Promise<IssuerMetadata> {
  const urlProblem = issuerUrlProblem(configUrl);
  if (urlProblem) throw failed(configUrl, `the URL ${urlProblem}`);
  let response: Response;
  try {
    response = await fetch(configUrl, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw failed(configUrl, timedOut ? `no answer within ${options.timeoutMs ?? 5000} ms` : `the IdP cannot be reached (${networkReason(error)})`, error);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed: set OIDC_CONFIG_URL to the document\'s final URL)' : '';
    throw failed(configUrl, `expected HTTP 200 with the discovery document, got HTTP ${response.status}${redirect}`);
  }
  let document: unknown;
  try {
    document = await response.json();
  } catch (error) {
    throw failed(configUrl, 'the answer is not JSON', error);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) throw failed(configUrl, 'expected a JSON object');
  const doc = document as Record<string, unknown>;
  const issuer = doc['issuer'];
  const jwksUri = doc['jwks_uri'];
  if (typeof issuer !== 'string' || issuer === '') throw failed(configUrl, 'the document has no "issuer"');
  if (typeof jwksUri !== 'string' || jwksUri === '') throw failed(configUrl, 'the document has no "jwks_uri" (an IdP that signs tokens publishes its keys there)');
  const expected = expectedIssuer(new URL(configUrl));
  if (expected !== undefined && withoutTrailingSlash(expected) !== withoutTrailingSlash(issuer)) {
    throw failed(configUrl, `the document names the issuer ${JSON.stringify(issuer)}, but a document at this URL must name ${JSON.stringify(expected)}`);
  }
  const issuerProblem = issuerUrlProblem(issuer);
  if (issuerProblem) throw failed(configUrl, `the issuer ${JSON.stringify(issuer)} ${issuerProblem}`);
  const jwksProblem = issuerUrlProblem(jwksUri);
  if (jwksProblem) throw failed(configUrl, `jwks_uri ${JSON.stringify(jwksUri)} ${jwksProblem}`);
  return Object.freeze({ issuer, jwksUri, document: Object.freeze(doc) });
}
