import { ToolgraphError } from '../../src/errors/index.ts';

/**
 * The ToolgraphError a refusal raises: the one way tests catch one. Given a promise, what it rejects
 * with; given a function, what it throws. Anything else fails the test: a value instead of an error,
 * an error of another kind (rethrown as it was), or a function that returns a promise (pass the
 * promise itself, so a rejection is never mistaken for a value).
 */
export function failure(promise: PromiseLike<unknown>): Promise<ToolgraphError>;
export function failure(run: () => unknown): ToolgraphError;
export function failure(subject: PromiseLike<unknown> | (() => unknown)): Promise<ToolgraphError> | ToolgraphError {
  if (typeof subject !== 'function') {
    return Promise.resolve(subject).then(() => {
      throw new Error('expected a ToolgraphError, got a value');
    }, toolgraphError);
  }
  let value: unknown;
  try {
    value = subject();
  } catch (error) {
    return toolgraphError(error);
  }
  if (typeof (value as PromiseLike<unknown> | undefined)?.then === 'function') {
    throw new Error('failure(run): run returned a promise; pass the promise itself');
  }
  throw new Error('expected a ToolgraphError, got a value');
}

function toolgraphError(error: unknown): ToolgraphError {
  if (error instanceof ToolgraphError) return error;
  throw error;
}
