import { compactVerify, errors as joseErrors } from 'jose';
import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import { toNativeRequest, type NativeRequest } from '../dispatch/index.ts';
import type { CarrierPrincipal } from './carrier-principal.ts';
import {
  CLOCK_TOLERANCE_SECS, ENVELOPE_ALGORITHMS, ENVELOPE_PREFIX, ENVELOPE_TYP, MAX_AUTHORIZATION_LENGTH, MAX_CONTEXT_ITEM_LENGTH,
  MAX_CONTEXT_ITEMS, MAX_ENVELOPE_LIFETIME_SECS, MAX_SUBJECT_LENGTH, NONCE_PATTERN,
} from './envelope-format.ts';
import type { SignerKeys } from './signer-keys.ts';

/** What the carrier keeps of a verified envelope; the envelope itself is dropped. */
export interface VerifiedEnvelope {
  readonly request: NativeRequest;
  /** The GraphQl method's query and variables (the envelope must carry a GraphQl method). */
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>> | null;
  readonly nonce: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  readonly principal: CarrierPrincipal;
}

function refuse(message: string, cause?: unknown): ToolgraphError {
  return new ToolgraphError('TG_ENVELOPE_INVALID', message, cause === undefined ? {} : { cause });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const PAYLOAD_KEYS = new Set(['req', 'nonce', 'iat', 'exp', 'ctx']);
const CONTEXT_KEYS = new Set(['sub', 'scopes', 'groups']);

/** Takes `<prefix><JWS>` out of `Authorization: Bearer …`; never echoes what came. */
function envelopeOf(authorization: string | undefined): string {
  if (authorization === undefined || authorization === '') {
    throw refuse(`No Authorization header: send Authorization: Bearer ${ENVELOPE_PREFIX}<signed envelope>.`);
  }
  if (authorization.length > MAX_AUTHORIZATION_LENGTH) throw refuse(`The Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters.`);
  const match = /^Bearer +(\S+)$/i.exec(authorization);
  if (!match) throw refuse(`The Authorization header is not a Bearer credential: send Authorization: Bearer ${ENVELOPE_PREFIX}<signed envelope>.`);
  const credential = match[1]!;
  if (!credential.startsWith(ENVELOPE_PREFIX)) {
    throw refuse(`The bearer credential is not a carrier envelope (it must start with "${ENVELOPE_PREFIX}"); IdP access tokens are not accepted here.`);
  }
  return credential.slice(ENVELOPE_PREFIX.length);
}

async function verifySignature(jws: string, keys: SignerKeys): Promise<{ payload: Uint8Array; typ: unknown }> {
  try {
    const { payload, protectedHeader } = await compactVerify(jws, keys, { algorithms: [...ENVELOPE_ALGORITHMS] });
    return { payload, typ: protectedHeader.typ };
  } catch (error) {
    if (error instanceof joseErrors.JWKSNoMatchingKey) throw refuse('The envelope is signed by a key that is not among the trusted signer keys (unknown signer).', error);
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) throw refuse('The envelope signature does not verify: it was altered or signed by another key.', error);
    // RFC 7515 (4.1.11): jose refuses a crit extension it does not understand, or a malformed crit, before the algorithm.
    if ((error instanceof joseErrors.JOSENotSupported || error instanceof joseErrors.JWSInvalid) && /"crit"|Extension Header Parameter/.test(error.message)) {
      throw refuse('The envelope\'s protected header has a crit (critical) header naming an extension the carrier does not understand, or a malformed one; envelopes carry only alg, kid and typ.', error);
    }
    if (error instanceof joseErrors.JOSEAlgNotAllowed) throw refuse(`The envelope uses a JWS algorithm the carrier does not accept (accepted: ${ENVELOPE_ALGORITHMS.join(', ')}).`, error);
    if (error instanceof joseErrors.JWKSMultipleMatchingKeys) throw refuse('The envelope header matches several trusted signer keys; sign with a kid.', error);
    if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
      throw new ToolgraphError('TG_INTERNAL', 'The trusted signer keys could not be loaded; try again later.', { cause: error });
    }
    if (error instanceof joseErrors.JOSEError) throw refuse('The envelope is not a valid compact JWS.', error);
    throw error;
  }
}

function stringList(value: unknown, field: string): readonly string[] {
  if (!Array.isArray(value) || value.length > MAX_CONTEXT_ITEMS
    || !value.every((item) => typeof item === 'string' && item.length > 0 && item.length <= MAX_CONTEXT_ITEM_LENGTH)) {
    throw refuse(`The envelope's ctx.${field} must be a list of at most ${MAX_CONTEXT_ITEMS} non-empty strings of at most ${MAX_CONTEXT_ITEM_LENGTH} characters.`);
  }
  return Object.freeze([...value as string[]]);
}

/**
 * Verifies `Authorization: Bearer tgsse1.<JWS>`: the signature against the trusted signer keys, the
 * `typ`, the expiry (with five seconds of tolerance, and at most five minutes ahead), the nonce shape,
 * the signed context, and that `req` is a native request with a GraphQl method. The request id is
 * read from its JSON source text, so an id above 2^53 keeps every digit.
 */
export async function verifyEnvelope(authorization: string | undefined, keys: SignerKeys, nowSecs: number): Promise<VerifiedEnvelope> {
  const jws = envelopeOf(authorization);
  const { payload, typ } = await verifySignature(jws, keys);
  if (typ !== ENVELOPE_TYP) throw refuse(`The envelope's typ header must be "${ENVELOPE_TYP}".`);

  const idSources = new WeakMap<object, string>();
  let body: unknown;
  try {
    body = JSON.parse(utf8.decode(payload), function (this: object, key: string, value: unknown, context?: { source?: string }) {
      if (key === 'id' && typeof value === 'number' && context?.source !== undefined) idSources.set(this, context.source);
      return value;
    });
  } catch (error) {
    throw refuse('The envelope payload is not UTF-8 JSON.', error);
  }
  if (!isObject(body)) throw refuse('The envelope payload must be a JSON object.');
  for (const key of Object.keys(body)) if (!PAYLOAD_KEYS.has(key)) throw refuse(`The envelope payload has an unknown member "${key.slice(0, 40)}".`);

  const exp = body['exp'];
  if (!Number.isSafeInteger(exp)) throw refuse('The envelope has no integer exp (seconds since the epoch).');
  const expiresAt = exp as number;
  if (expiresAt + CLOCK_TOLERANCE_SECS <= nowSecs) {
    throw refuse(`The envelope expired at ${new Date(expiresAt * 1000).toISOString()}; sign a fresh one for every request and reconnect.`);
  }
  if (expiresAt - nowSecs > MAX_ENVELOPE_LIFETIME_SECS + CLOCK_TOLERANCE_SECS) {
    throw refuse(`The envelope expires more than ${MAX_ENVELOPE_LIFETIME_SECS} seconds from now; sign envelopes that live at most ${MAX_ENVELOPE_LIFETIME_SECS} seconds.`);
  }
  const iat = body['iat'];
  if (iat !== undefined && !Number.isSafeInteger(iat)) throw refuse('The envelope iat must be an integer.');
  const nonce = body['nonce'];
  if (typeof nonce !== 'string' || !NONCE_PATTERN.test(nonce)) throw refuse('The envelope nonce must be 16 to 128 base64url characters.');

  const ctx = body['ctx'];
  if (!isObject(ctx)) throw refuse('The envelope has no signed context (ctx with sub, scopes and groups).');
  for (const key of Object.keys(ctx)) if (!CONTEXT_KEYS.has(key)) throw refuse(`The envelope's ctx has an unknown member "${key.slice(0, 40)}".`);
  const sub = ctx['sub'];
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_SUBJECT_LENGTH) throw refuse(`The envelope's ctx.sub must be a subject of 1 to ${MAX_SUBJECT_LENGTH} characters.`);
  const principal: CarrierPrincipal = Object.freeze({
    subject: sub,
    scopes: stringList(ctx['scopes'], 'scopes'),
    groups: ctx['groups'] === undefined ? Object.freeze([]) : stringList(ctx['groups'], 'groups'),
  });

  const req = body['req'];
  let request: NativeRequest;
  try {
    request = toNativeRequest(req, isObject(req) ? idSources.get(req) : undefined);
  } catch (error) {
    if (isToolgraphError(error)) throw refuse(`The envelope's req is not a native request: ${error.message}`, error);
    throw error;
  }
  if (!('GraphQl' in request.method)) throw refuse('The envelope\'s request must carry a GraphQl method with the subscription text.');
  const { query, variables } = request.method.GraphQl;
  return { request, query, variables, nonce, expiresAt, principal };
}
