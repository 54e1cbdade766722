export { dispatch } from './dispatch.ts';
export type { DispatchDeps, GraphQlCall, GraphQlHandler } from './dispatch.ts';
export { parseNativeRequest, toNativeRequest } from './native-request.ts';
export type { NativeMethod, NativeRequest } from './native-request.ts';
export { serializeNativeResponse } from './native-response.ts';
export type { NativeErrorDetail, NativeResponse } from './native-response.ts';
export { WRITE_SCOPES, readScopes, requireScope } from './scopes.ts';
export type { Principal } from './scopes.ts';
export { U64_MAX, parseU64 } from './u64.ts';
