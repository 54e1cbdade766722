import type { ErrorCode } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Principal } from '../../principal/index.ts';
import { dispatch, type DispatchDeps } from './dispatch.ts';
import type { NativeRequest } from './native-request.ts';
import { serializeNativeResponse, type NativeErrorDetail } from './native-response.ts';

export interface NativeAnswer {
  /** The NativeResponse as JSON text: always carries the request's id. */
  readonly text: string;
  /** `ok`, or the error code the response carries. */
  readonly outcome: 'ok' | ErrorCode;
  /** The error the response carries, when it carries one. */
  readonly error?: NativeErrorDetail;
}

const UNWRITABLE = 'The result could not be written as JSON; nothing about it is shown here, and the server log has the details.';

/**
 * Written by hand, not by the serialiser: the one answer that must work when the serialiser (or
 * anything else after the request was parsed) has just failed.
 */
function internalErrorText(request: NativeRequest, message: string): string {
  const digits = request.id.toString();
  const id = request.idForm === 'string' ? `"${digits}"` : digits;
  return `{"error":{"code":"TG_INTERNAL","message":${JSON.stringify(message)}},"id":${id}}`;
}

/**
 * Runs a parsed NativeRequest and writes its NativeResponse. Whatever fails after the request was
 * parsed (running it, or serialising a result holding something JSON cannot carry) still answers a
 * NativeResponse with the request's id, so a client can always match an answer to its request.
 */
export async function answerNativeRequest(request: NativeRequest, principal: Principal, deps: DispatchDeps & { logger?: Logger }): Promise<NativeAnswer> {
  try {
    const response = await dispatch(request, principal, deps);
    const text = serializeNativeResponse(response);
    return 'error' in response ? { text, outcome: response.error.code, error: response.error } : { text, outcome: 'ok' };
  } catch (error) {
    deps.logger?.error({ err: error, method: Object.keys(request.method)[0] }, 'a NativeResponse could not be produced');
    return { text: internalErrorText(request, UNWRITABLE), outcome: 'TG_INTERNAL' };
  }
}
