import type { Principal } from '../../principal/index.ts';

/** Scopes that make a principal an administrator: it bypasses every graph's ACL and row rules. */
export const ADMIN_SCOPES: readonly string[] = ['kg:admin', '*'];

/** kg:admin (or `*`, which the local operator of AUTH_TYPE=none holds) bypasses ACL and RLS. */
export function isAdmin(principal: Principal): boolean {
  return principal.scopes.some((scope) => ADMIN_SCOPES.includes(scope));
}

/** A claim value a predicate can compare: a scalar, a list of scalars, or missing (undefined). */
export type ClaimValue = string | number | boolean | readonly (string | number | boolean)[] | undefined;

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * A claim of the principal's token, as predicates see it: a scalar, or a list of its scalar items;
 * anything else (an object, null, absent) is missing. Principals without the raw claims (the local
 * operator, a carrier session's signed context) still answer `sub`, `groups` and `scope` from their
 * subject, groups and scopes.
 */
export function claimOf(principal: Principal, name: string): ClaimValue {
  const raw = principal.claims !== undefined && Object.hasOwn(principal.claims, name) ? principal.claims[name] : fallback(principal, name);
  if (isScalar(raw)) return raw;
  if (Array.isArray(raw)) return Object.freeze(raw.filter(isScalar));
  return undefined;
}

function fallback(principal: Principal, name: string): unknown {
  if (name === 'sub') return principal.subject;
  if (name === 'groups') return principal.groups;
  if (name === 'scope') return principal.scopes;
  return undefined;
}
