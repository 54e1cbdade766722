export { principalFromClaims } from './principal.ts';
export type { Principal } from './principal.ts';
export { GRAPH_SCOPES, WRITE_SCOPES, readScopes, requireScope } from './scopes.ts';
