import type { components } from '../../generated/openapi/types.ts';
import { ERROR_CODES, type ErrorCode } from './codes.ts';

/**
 * The JSON body of every error response: the OpenAPI document's `ErrorBody` (generated), its code
 * narrowed from the pattern `^TG_[A-Z0-9_]+$` to the codes this build knows.
 */
export type ErrorBody = components['schemas']['ErrorBody'] & { error: { code: ErrorCode } };

export interface ToolgraphErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Overrides the code's default HTTP status where a route needs a more specific one. */
  status?: number;
}

/** The one error family of toolgraph: a stable `code`, the HTTP `status` beside it, a plain-sentence message. */
export class ToolgraphError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ToolgraphErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolgraphError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.details = options.details;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { error: { code: this.code, message: this.message } };
    if (this.details !== undefined) body.error.details = this.details;
    return body;
  }
}

export function isToolgraphError(value: unknown): value is ToolgraphError {
  return value instanceof ToolgraphError;
}

/** Turns anything thrown into a ToolgraphError, hiding the text of unexpected faults from callers. */
export function toToolgraphError(value: unknown): ToolgraphError {
  if (value instanceof ToolgraphError) return value;
  return new ToolgraphError('TG_INTERNAL', 'Internal server error.', { cause: value });
}
