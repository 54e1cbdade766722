export { ERROR_CODES, statusOf } from './codes.ts';
export type { ErrorCode, ErrorCodeInfo } from './codes.ts';
export { ToolgraphError, isToolgraphError, toToolgraphError } from './toolgraph-error.ts';
export type { ErrorBody } from './toolgraph-error.ts';
export { describeValue } from './describe-value.ts';
export { notJsonError } from './not-json.ts';
