export { ERROR_CODES, statusOf } from './codes.ts';
export type { ErrorCode } from './codes.ts';
export { ToolgraphError, isToolgraphError, toToolgraphError } from './toolgraph-error.ts';
export type { ErrorBody, ToolgraphErrorOptions } from './toolgraph-error.ts';
