import { getRandomValues, randomBytes, type KeyObject } from 'node:crypto';
import { CompactSign, base64url, type CryptoKey } from 'jose';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { U64_MAX, parseU64 } from '../dispatch/index.ts';
import {
  DEFAULT_ENVELOPE_LIFETIME_SECS, ENVELOPE_PREFIX, ENVELOPE_TYP, MAX_ENVELOPE_LIFETIME_SECS, type EnvelopeAlgorithm, type EnvelopeContext,
} from './envelope-format.ts';
import { SUBSCRIBE_PATH } from './subscribe-request.ts';

declare global {
  interface JSON {
    /** Node 22 (V8 11.4+): a value JSON.stringify writes verbatim, so a u64 id keeps every digit. */
    rawJSON(text: string): unknown;
  }
}

export interface SignEnvelopeOptions {
  /** The signer's private key (jose `importJWK` / `importPKCS8`, or a node KeyObject). */
  readonly key: CryptoKey | KeyObject;
  readonly alg: EnvelopeAlgorithm;
  /** The key id the carrier finds the public key under in its JWKS. */
  readonly kid?: string;
  readonly graph: string;
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>> | null;
  readonly agentId?: string | null;
  /** The request id (1 to 2^64-1); a random one when omitted. */
  readonly id?: bigint;
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly groups?: readonly string[];
  /** Seconds until the envelope expires: 1 to 300, default 60. */
  readonly ttlSecs?: number;
  /** Fresh random bytes when omitted (tests pass one to replay it). */
  readonly nonce?: string;
  /** Milliseconds since the epoch; defaults to Date.now(). */
  readonly now?: number;
}

/** What a client sends: the two headers and the request path with both parameters percent-encoded. */
export interface SignedEnvelope {
  readonly authorization: string;
  readonly requestId: string;
  readonly path: string;
  readonly headers: { readonly authorization: string; readonly 'x-service-request-id': string };
}

/** A random u64 in 1..2^64-1. */
function randomRequestId(): bigint {
  const [value] = getRandomValues(new BigUint64Array(1));
  return value === undefined || value === 0n ? 1n : value;
}

export function subscribePath(graph: string, query: string): string {
  return `${SUBSCRIBE_PATH}?graph=${encodeURIComponent(graph)}&query=${encodeURIComponent(query)}`;
}

/**
 * Signs one carrier request: the exact native request plus a nonce, an expiry and the signed context.
 * Every call makes a fresh id (unless given) and nonce, as every request and reconnect needs.
 */
export async function signEnvelope(options: SignEnvelopeOptions): Promise<SignedEnvelope> {
  const id = options.id ?? randomRequestId();
  if (id < 1n || id > U64_MAX) throw new ToolgraphError('TG_BAD_REQUEST', `The request id must be 1 to ${U64_MAX}; got ${id}.`);
  parseU64(id.toString(), 'id');
  const ttl = options.ttlSecs ?? DEFAULT_ENVELOPE_LIFETIME_SECS;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_ENVELOPE_LIFETIME_SECS) {
    throw new ToolgraphError('TG_BAD_REQUEST', `The envelope lifetime must be an integer from 1 to ${MAX_ENVELOPE_LIFETIME_SECS} seconds; got ${describeValue(ttl)}.`);
  }
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const ctx: EnvelopeContext = { sub: options.subject, scopes: [...options.scopes], groups: [...(options.groups ?? [])] };
  const payload = JSON.stringify({
    req: {
      id: JSON.rawJSON(id.toString()),
      graph: options.graph,
      agent_id: options.agentId ?? null,
      method: { GraphQl: { query: options.query, variables: options.variables ?? null } },
    },
    nonce: options.nonce ?? base64url.encode(randomBytes(18)),
    iat: now,
    exp: now + ttl,
    ctx,
  });
  const header = { alg: options.alg, typ: ENVELOPE_TYP, ...(options.kid === undefined ? {} : { kid: options.kid }) };
  const jws = await new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader(header).sign(options.key);
  const authorization = `Bearer ${ENVELOPE_PREFIX}${jws}`;
  const requestId = id.toString();
  return {
    authorization,
    requestId,
    path: subscribePath(options.graph, options.query),
    headers: { authorization, 'x-service-request-id': requestId },
  };
}
