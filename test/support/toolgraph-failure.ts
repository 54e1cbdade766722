import { ToolgraphError } from '../../src/errors/index.ts';

/** The ToolgraphError `promise` rejects with; any other outcome fails the test. */
export async function failure(promise: Promise<unknown>): Promise<ToolgraphError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolgraphError) return error;
    throw error;
  }
  throw new Error('expected a ToolgraphError, got a value');
}
