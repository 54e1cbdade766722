/**
 * Who is calling, as the auth layer resolved it. With AUTH_TYPE=none this is the local operator;
 * with a verified bearer token it is the token's subject, its scopes and groups, and every claim
 * (for the access rules that read claims). `groups` and `claims` are optional so principals built
 * by hand (tests, the local operator) need not invent them.
 */
export interface Principal {
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly groups?: readonly string[];
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** A claim that is a list of names: an array of strings, or one space-separated string (Entra's `scp`). */
function names(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((s) => s.length > 0);
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return [];
}

/**
 * The principal of a verified token: scopes from `scope` (RFC 9068, space-separated) and `scp`
 * (an array in Okta and others, a string in Entra), groups from `groups` (a list, or one name).
 */
export function principalFromClaims(claims: Readonly<Record<string, unknown>>): Principal {
  const scopes = [...new Set([...names(claims['scope']), ...names(claims['scp'])])];
  const rawGroups = claims['groups'];
  const groups = typeof rawGroups === 'string' ? [rawGroups] : names(rawGroups);
  return Object.freeze({
    subject: String(claims['sub']),
    scopes: Object.freeze(scopes),
    groups: Object.freeze(groups),
    claims: Object.freeze({ ...claims }),
  });
}
