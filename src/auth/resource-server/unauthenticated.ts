import { ToolgraphError } from '../../errors/index.ts';

/**
 * Why a request carries no valid bearer token, as `details.reason` of TG_UNAUTHENTICATED: stable
 * words a client or a test can branch on, never a token or a claim value.
 */
export type RefusalReason =
  | 'missing' | 'malformed' | 'crit' | 'algorithm' | 'unknown_key' | 'signature'
  | 'issuer' | 'audience' | 'expired' | 'not_yet_valid' | 'claims' | 'sender_constrained';

export function unauthenticated(reason: RefusalReason, message: string, cause?: unknown): ToolgraphError {
  return new ToolgraphError('TG_UNAUTHENTICATED', message, { details: { reason }, ...(cause === undefined ? {} : { cause }) });
}
