import type { IncomingHttpHeaders } from 'node:http';
import { InvalidClientError, TemporarilyUnavailableError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { LRUCache } from 'lru-cache';
import { expiringLru } from '../../cache/index.ts';
import type { Logger } from '../../log/index.ts';
import { GuardedFetchRefused, guardedFetchJson, type FetchedJson, type GuardedFetchOptions } from './guarded-fetch.ts';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP 2026-07-28 puts
 * them before dynamic registration): a client whose `client_id` is an https URL is described by the
 * JSON document served at that URL, fetched here when the client comes to /authorize or /token.
 */

/** How long a fetched document is used: its Cache-Control max-age or Expires, within these bounds. */
const MIN_CACHE_MS = 60_000;
const MAX_CACHE_MS = 24 * 3600_000;
/** A document without cache headers. */
const DEFAULT_CACHE_MS = 5 * 60_000;
/** A refusal (bad document, unreachable host) is remembered this long, so a client cannot make the proxy fetch on every request. */
const REFUSAL_CACHE_MS = 30_000;
/** Documents and refusals kept, least recently used dropped first. */
const MAX_CACHED = 1000;
/** Fetches in flight at once, over every URL (one per URL: concurrent requests share it). */
const MAX_IN_FLIGHT = 32;
const MAX_CLIENT_ID_LENGTH = 2048;
const MAX_REDIRECT_URIS = 32;
const MAX_TEXT_LENGTH = 512;
/** The only token endpoint auth method a document may name: it cannot carry a secret. */
const SECRET_AUTH_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:']);

export interface ClientMetadataDocumentOptions extends GuardedFetchOptions {
  readonly logger: Logger;
  readonly now?: () => number;
}

type Resolution = { readonly client: OAuthClientInformationFull } | { readonly refusal: string };

/** A client_id that names a metadata document (any URL-looking id: a registered one is a UUID). */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(clientId);
}

/** What is wrong with `clientId` as a metadata document URL (the draft's §3 rules), or undefined. */
function urlProblem(clientId: string): string | undefined {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return `it is longer than ${MAX_CLIENT_ID_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'it is not a valid URL';
  }
  if (url.protocol !== 'https:') return `it is not an https URL (a client ID metadata document is fetched over https only; ${url.protocol.slice(0, 20)} refused)`;
  if (url.username !== '' || url.password !== '') return 'it carries a user name or password';
  if (clientId.includes('#')) return 'it has a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'it has no path (the document must be at a path, e.g. https://app.example/oauth/client.json)';
  // The path as written (the URL parser resolves dot segments away).
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(clientId)?.[1] ?? '';
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return 'its path has a "." or ".." segment';
  return undefined;
}

function stringField(document: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const value = document[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') throw new Error(`${field} is ${value === undefined ? 'missing' : 'not a non-empty string'}`);
  if (value.length > MAX_TEXT_LENGTH) throw new Error(`${field} is longer than ${MAX_TEXT_LENGTH} characters`);
  return value;
}

function stringList(document: Record<string, unknown>, field: string): string[] | undefined {
  const value = document[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) throw new Error(`${field} is not an array of strings`);
  return value;
}

function urlField(document: Record<string, unknown>, field: string): string | undefined {
  const value = stringField(document, field, false);
  if (value !== undefined && !/^https?:$/.test(URL.parse(value)?.protocol ?? '')) throw new Error(`${field} is not an http(s) URL`);
  return value;
}

/** The document as a client of this proxy, or an Error whose message says which field is wrong. */
function clientOf(clientId: string, text: string): OAuthClientInformationFull {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('it is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('it is not a JSON object');
  const document = parsed as Record<string, unknown>;
  if (document['client_id'] !== clientId) {
    throw new Error(`its client_id ${JSON.stringify(String(document['client_id'] ?? '(missing)').slice(0, 200))} is not the URL it was fetched from (they must be equal, character for character)`);
  }
  const clientName = stringField(document, 'client_name', true) as string;
  const redirectUris = stringList(document, 'redirect_uris');
  if (redirectUris === undefined || redirectUris.length === 0) throw new Error('redirect_uris is missing or empty');
  if (redirectUris.length > MAX_REDIRECT_URIS) throw new Error(`redirect_uris lists more than ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of redirectUris) {
    const url = URL.parse(uri);
    if (url === null || url.hash !== '' || UNSAFE_SCHEMES.has(url.protocol)) throw new Error(`redirect_uris has ${JSON.stringify(uri.slice(0, 200))}, not an absolute URL without fragment`);
  }
  if ('client_secret' in document || 'client_secret_expires_at' in document) throw new Error('it carries client_secret: a client ID metadata document is public and cannot hold a secret');
  const method = stringField(document, 'token_endpoint_auth_method', false) ?? 'none';
  if (SECRET_AUTH_METHODS.has(method)) throw new Error(`token_endpoint_auth_method ${method} needs a shared secret, which a client ID metadata document cannot carry; use none`);
  if (method !== 'none') throw new Error(`token_endpoint_auth_method ${JSON.stringify(method.slice(0, 50))} is not supported here; use none`);
  const grantTypes = stringList(document, 'grant_types');
  if (grantTypes !== undefined && !grantTypes.includes('authorization_code')) throw new Error('grant_types does not include authorization_code');
  const responseTypes = stringList(document, 'response_types');
  if (responseTypes !== undefined && !responseTypes.includes('code')) throw new Error('response_types does not include code');
  const logoUri = urlField(document, 'logo_uri');
  const clientUri = urlField(document, 'client_uri');
  return {
    client_id: clientId,
    client_name: clientName,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: grantTypes ?? ['authorization_code'],
    response_types: responseTypes ?? ['code'],
    ...(logoUri === undefined ? {} : { logo_uri: logoUri }),
    ...(clientUri === undefined ? {} : { client_uri: clientUri }),
  };
}

/** How long a document answered with `headers` may be used: max-age, else Expires, else the default; within the bounds. */
function cacheMsOf(headers: IncomingHttpHeaders, now: number): number {
  const control = (headers['cache-control'] ?? '').toLowerCase();
  let ms = DEFAULT_CACHE_MS;
  const maxAge = /(?:^|[,\s])max-age\s*=\s*"?(\d+)/.exec(control);
  if (/(?:^|[,\s])(no-store|no-cache)(?:$|[,\s=])/.test(control)) ms = 0;
  else if (maxAge) ms = Number(maxAge[1]) * 1000;
  else if (typeof headers.expires === 'string') {
    const expires = Date.parse(headers.expires);
    const date = typeof headers.date === 'string' ? Date.parse(headers.date) : now;
    ms = Number.isNaN(expires) ? 0 : expires - (Number.isNaN(date) ? now : date);
  }
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, ms));
}

/**
 * Resolves metadata-document client ids, with a bounded cache of documents (for as long as their
 * cache headers say, from 60 s to 24 h) and of refusals (30 s), per process. Concurrent requests
 * for one URL share its fetch; at most 32 fetches run at once.
 */
export class ClientMetadataDocuments {
  readonly #options: ClientMetadataDocumentOptions;
  readonly #now: () => number;
  readonly #cache: LRUCache<string, Resolution>;
  readonly #inFlight = new Map<string, Promise<Resolution>>();

  constructor(options: ClientMetadataDocumentOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#cache = expiringLru<string, Resolution>({ max: MAX_CACHED, now: this.#now });
  }

  /** The client `clientId` (an https URL) describes, or an invalid_client error saying what is wrong. */
  async resolve(clientId: string): Promise<OAuthClientInformationFull> {
    const resolution = this.#cache.get(clientId) ?? (await this.#fetchOnce(clientId));
    if ('refusal' in resolution) throw new InvalidClientError(resolution.refusal);
    return resolution.client;
  }

  #fetchOnce(clientId: string): Promise<Resolution> {
    const running = this.#inFlight.get(clientId);
    if (running) return running;
    if (this.#inFlight.size >= MAX_IN_FLIGHT) {
      return Promise.reject(new TemporarilyUnavailableError(`The authorization server is fetching ${MAX_IN_FLIGHT} client ID metadata documents already; retry in a moment.`));
    }
    const fetching = this.#fetch(clientId).finally(() => this.#inFlight.delete(clientId));
    this.#inFlight.set(clientId, fetching);
    return fetching;
  }

  async #fetch(clientId: string): Promise<Resolution> {
    const refuse = (why: string): Resolution => {
      const refusal = `The client ID metadata document ${clientId.slice(0, 300)} is refused: ${why}.`;
      this.#options.logger.info({ clientId: clientId.slice(0, 300), reason: why }, 'OAuth proxy: client ID metadata document refused');
      this.#cache.set(clientId, { refusal }, { ttl: REFUSAL_CACHE_MS });
      return { refusal };
    };
    const problem = urlProblem(clientId);
    if (problem !== undefined) return refuse(problem);
    let fetched: FetchedJson;
    try {
      fetched = await guardedFetchJson(new URL(clientId), this.#options);
    } catch (error) {
      if (error instanceof GuardedFetchRefused) return refuse(error.message);
      throw error;
    }
    let client: OAuthClientInformationFull;
    try {
      client = clientOf(clientId, fetched.text);
    } catch (error) {
      return refuse((error as Error).message);
    }
    this.#cache.set(clientId, { client }, { ttl: cacheMsOf(fetched.headers, this.#now()) });
    this.#options.logger.info({ clientId, clientName: client.client_name }, 'OAuth proxy: client ID metadata document fetched');
    return { client };
  }
}
