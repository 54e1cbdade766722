export { checkAccessPolicy, MAX_POLICY_DEPTH } from './check-policy.ts';
export type { AccessPolicy, Operand, Predicate } from './check-policy.ts';
export { ADMIN_SCOPES, isAdmin } from './principal-claims.ts';
export { grantOf, graphNotFound, mayRead, readableView, restrictionFor, writableBatch } from './access-control.ts';
export type { AccessSource } from './access-control.ts';
export { engineAs } from './access-cypher-engine.ts';
export { createCarrierAccess } from './carrier-access.ts';
export { OPEN_POLICY, readAccessPolicy, replaceAccessPolicy } from './policy-admin.ts';
export type { PolicyStore } from './policy-admin.ts';
