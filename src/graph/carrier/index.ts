export type { CarrierAccess } from './carrier-access.ts';
export type { CarrierPrincipal } from './carrier-principal.ts';
export type { SubscriptionError, SubscriptionExecutor, SubscriptionRequest, SubscriptionResult } from './subscription-executor.ts';
export { startCarrier, DEFAULT_BUFFER_CAP, DEFAULT_KEEPALIVE_MS, HANDSHAKE_TIMEOUT_MS } from './carrier-listener.ts';
export type { CarrierOptions, CarrierStats, RunningCarrier } from './carrier-listener.ts';
export type { CarrierGraphs } from './subscription-hub.ts';
export {
  CLOCK_TOLERANCE_SECS, DEFAULT_ENVELOPE_LIFETIME_SECS, ENVELOPE_ALGORITHMS, ENVELOPE_PREFIX, ENVELOPE_TYP, MAX_ENVELOPE_LIFETIME_SECS,
} from './envelope-format.ts';
export type { EnvelopeAlgorithm } from './envelope-format.ts';
export { randomRequestId, signEnvelope, subscribePath } from './sign-envelope.ts';
export type { SignEnvelopeOptions, SignedEnvelope } from './sign-envelope.ts';
export { checkSignerJwks, loadSignerKeys } from './signer-keys.ts';
export { envelopeAlgorithm, generateSigningKey, readSigningKey } from './signing-key.ts';
export type { SigningKey } from './signing-key.ts';
export type { SignerKeys } from './signer-keys.ts';
export { verifyEnvelope } from './verify-envelope.ts';
export type { VerifiedEnvelope } from './verify-envelope.ts';
export { MAX_NESTING, MAX_QUERY_BYTES, checkQueryText, nestingDepth } from './query-text-rules.ts';
export { MAX_COMPLEXITY, MAX_DEPTH, MAX_ROOT_LIMIT, UNBOUNDED_FANOUT, checkSubscriptionRules, parseSubscription } from './subscription-rules.ts';
export type { SubscriptionShape } from './subscription-rules.ts';
export { SUBSCRIBE_PATH, parseSubscribeQuery } from './subscribe-request.ts';
export { MAX_FRAME_BYTES } from './sse-frames.ts';
export type { EndReason } from './sse-frames.ts';
export { MemoryReplayLedger, DEFAULT_LEDGER_CAPACITY } from './replay-ledger.ts';
export type { ReplayLedger, ReplayOutcome } from './replay-ledger.ts';
export { NONCE_SPACE, REQUEST_ID_SPACE, StoreReplayLedger } from './store-replay-ledger.ts';
