import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ToolgraphError } from '../../errors/index.ts';
import { headerCount } from '../../http/index.ts';
import { readScopes, requireScope } from '../../principal/index.ts';
import { parseU64 } from '../dispatch/index.ts';
import type { CarrierAccess } from './carrier-access.ts';
import type { ReplayLedger } from './replay-ledger.ts';
import { checkQueryText } from './query-text-rules.ts';
import type { SignerKeys } from './signer-keys.ts';
import type { OpenRequest } from './subscription-hub.ts';
import { checkSubscriptionRules, parseSubscription } from './subscription-rules.ts';
import { parseSubscribeQuery } from './subscribe-request.ts';
import { verifyEnvelope } from './verify-envelope.ts';

export interface HandshakeDeps {
  readonly signerKeys: SignerKeys;
  readonly nonces: ReplayLedger;
  /** Request ids used, per signed subject (`requestIdKey`). */
  readonly requestIds: ReplayLedger;
  readonly access: CarrierAccess;
  /** Wall-clock milliseconds, for envelope expiry. */
  readonly now: () => number;
  /** What the query rules price a nested list without first/limit at (TOOLGRAPH_GRAPHQL_LIST_LIMIT). */
  readonly listLimit: number;
}

/** The scopes that allow a subscription (spec, Authentication: carrier, rule 2). */
export const SUBSCRIPTION_SCOPES: readonly string[] = readScopes('graphql');

function mismatch(what: string): ToolgraphError {
  return new ToolgraphError('TG_ENVELOPE_INVALID', `The envelope's ${what} is not byte-identical to the request's; sign the exact request you send.`, {
    details: { field: what },
  });
}

/**
 * The request-id ledger's key: the id within its signed subject, so one subject's ids never refuse
 * another's. A digest keeps every key 43 characters, whatever the subject's length.
 */
function requestIdKey(subject: string, requestId: bigint): string {
  return createHash('sha256').update(`${requestId}\u0000${subject}`).digest('base64url');
}

/**
 * Runs every check of a subscription handshake, cheapest first, and answers what the hub needs to
 * open the stream. Nothing here reads graph rows: the URL, the query text rules, the
 * X-Service-Request-Id header, the envelope (signature, expiry, byte-identical id, graph and
 * query), the scope, the nonce and the request id (both consumed here, before any stream starts), the
 * document rules and
 * the graph ACL. Afterwards the request's headers and URL are cleared: the signed request is not
 * kept.
 */
export async function subscribeHandshake(req: IncomingMessage, search: string, deps: HandshakeDeps): Promise<OpenRequest> {
  const { graph, query } = parseSubscribeQuery(search);
  checkQueryText(query);
  const rawId = req.headers['x-service-request-id'];
  if (typeof rawId !== 'string') throw new ToolgraphError('TG_REQUEST_INVALID', 'The X-Service-Request-Id header is missing; send the signed request id (a positive u64).');
  const requestId = parseU64(rawId, 'X-Service-Request-Id', JSON.stringify(rawId.slice(0, 40)));

  const nowSecs = Math.floor(deps.now() / 1000);
  // Node keeps only the first of repeated Authorization headers; which envelope counts must not depend on that.
  const authorizations = headerCount(req, 'authorization');
  if (authorizations > 1) {
    throw new ToolgraphError('TG_ENVELOPE_INVALID', `The request carries ${authorizations} Authorization headers; send exactly one, Authorization: Bearer tgsse1.<signed envelope>.`);
  }
  const envelope = await verifyEnvelope(req.headers.authorization, deps.signerKeys, nowSecs);
  if (envelope.request.id !== requestId) throw mismatch('request id');
  if (envelope.request.graph !== graph) throw mismatch('graph');
  if (envelope.query !== query) throw mismatch('subscription text');
  const { principal } = envelope;
  requireScope(principal, SUBSCRIPTION_SCOPES, 'A subscription');

  const nonce = await deps.nonces.consume(envelope.nonce, envelope.expiresAt, nowSecs);
  if (nonce === 'replayed') {
    throw new ToolgraphError('TG_NONCE_REPLAYED', 'This envelope\'s nonce was already used; every request and reconnect needs a fresh id, nonce and envelope.');
  }
  if (nonce === 'full') {
    throw new ToolgraphError('TG_RATE_LIMITED', 'The carrier remembers as many live nonces as it can; retry in a few seconds.');
  }
  // Spec: each reconnect needs a fresh request id too, not only a fresh nonce and envelope.
  const id = await deps.requestIds.consume(requestIdKey(principal.subject, requestId), envelope.expiresAt, nowSecs);
  if (id === 'replayed') {
    throw new ToolgraphError('TG_REQUEST_ID_REPLAYED', `The request id ${requestId} was already used by this subject; every request and reconnect needs a fresh id, nonce and envelope.`);
  }
  if (id === 'full') {
    throw new ToolgraphError('TG_RATE_LIMITED', 'The carrier remembers as many live request ids as it can; sign a fresh request and retry in a few seconds.');
  }

  const document = parseSubscription(query);
  const { complexity } = checkSubscriptionRules(document, envelope.variables, deps.listLimit);

  const visibility = deps.access.visibility(principal, graph);
  if (visibility === null) throw new ToolgraphError('TG_ACCESS_DENIED', 'The graph ACL does not allow this principal to read this graph.');

  forgetRequest(req);
  return { graph, query, document, variables: envelope.variables, principal, visibility, complexity };
}

/** Drops the signed request (Authorization header, URL) from the live request object. */
function forgetRequest(req: IncomingMessage): void {
  req.headers = {};
  req.rawHeaders = [];
  req.url = '';
}
