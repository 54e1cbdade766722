import { createHash } from 'node:crypto';
import type { Principal } from '../../principal/index.ts';
import type { NodeRecord, StoredAccess } from '../engine/index.ts';
import { validateAccessPolicy } from '../../../generated/validators/access-policy.ts';
import type { AccessPolicy, Matcher, Predicate } from './check-policy.ts';
import { claimOf } from './principal-claims.ts';
import { TRUE, claimsReadBy, compilePredicate } from './row-predicate.ts';

/** A label's rows for one principal: all of them, none, or those a compiled test accepts. */
export type LabelRule = boolean | ((node: NodeRecord) => boolean);

/** The row rules of one policy for one set of claim values: compiled per label on first use. */
export class RowRules {
  readonly #rules: Readonly<Record<string, Predicate>>;
  readonly #claim: (name: string) => ReturnType<typeof claimOf>;
  readonly #compiled = new Map<string, LabelRule>();

  constructor(rules: Readonly<Record<string, Predicate>>, claim: (name: string) => ReturnType<typeof claimOf>) {
    this.#rules = rules;
    this.#claim = claim;
  }

  /** Whether rows of `label` are visible: a label with no rule (and no "*" rule) is hidden. */
  rule(label: string): LabelRule {
    let rule = this.#compiled.get(label);
    if (rule === undefined) {
      const predicate = Object.hasOwn(this.#rules, label) ? this.#rules[label] : Object.hasOwn(this.#rules, '*') ? this.#rules['*'] : undefined;
      if (predicate === undefined) {
        rule = false;
      } else {
        const compiled = compilePredicate(predicate, this.#claim);
        if ('constant' in compiled) {
          rule = compiled.constant === TRUE;
        } else {
          rule = compiled.holds;
        }
      }
      this.#compiled.set(label, rule);
    }
    return rule;
  }

  /** Whether `node` is visible: its label's rule holds for it. */
  readonly shows = (node: NodeRecord): boolean => {
    const rule = this.rule(node.label);
    return rule === true || (rule !== false && rule(node));
  };
}

/** What one principal may do with one graph. */
export type Grant =
  /** Nothing: the graph looks as if it did not exist. */
  | { readonly kind: 'none' }
  /** Everything (kg:admin): ACL and row rules do not apply. */
  | { readonly kind: 'all' }
  /** Read through row rules; `write` when a write matcher grants it too; `key` names what it sees. */
  | { readonly kind: 'rows'; readonly rows: RowRules; readonly write: boolean; readonly key: string };

export const NO_GRANT: Grant = Object.freeze({ kind: 'none' });
export const FULL_GRANT: Grant = Object.freeze({ kind: 'all' });

/** Principals' compiled rules kept per policy (by the claim values the rules read). */
const RULES_PER_POLICY = 512;

function matches(matcher: Matcher, principal: Principal): boolean {
  if ('subject' in matcher) return principal.subject === matcher.subject;
  if ('group' in matcher) return principal.groups?.includes(matcher.group) === true;
  if ('scope' in matcher) return principal.scopes.includes(matcher.scope);
  return matcher.anyone;
}

/**
 * One stored policy version, compiled once: read and write matchers, the claims its row rules read,
 * and per distinct set of those claim values, the compiled row rules. A stored document that does
 * not validate (it cannot be stored through the API) grants nobody anything.
 */
export class CompiledPolicy {
  readonly version: number;
  readonly #policy: AccessPolicy | null;
  readonly #claims: readonly string[];
  readonly #digest: string;
  readonly #rules = new Map<string, Grant>();
  /** Principals are immutable and a verified token's is reused across its requests: one lookup each. */
  readonly #byPrincipal = new WeakMap<Principal, Grant>();

  constructor(stored: StoredAccess) {
    this.version = stored.version;
    this.#policy = validateAccessPolicy(stored.policy) ? stored.policy : null;
    const claims = new Set<string>();
    if (this.#policy !== null) for (const predicate of Object.values(this.#policy.rows)) claimsReadBy(predicate, claims);
    this.#claims = [...claims].sort();
    this.#digest = createHash('sha256').update(JSON.stringify(stored.policy)).digest('base64url').slice(0, 22);
  }

  grantFor(principal: Principal): Grant {
    let grant = this.#byPrincipal.get(principal);
    if (grant === undefined) this.#byPrincipal.set(principal, (grant = this.#grantFor(principal)));
    return grant;
  }

  #grantFor(principal: Principal): Grant {
    const policy = this.#policy;
    if (policy === null || !policy.read.some((m) => matches(m, principal))) return NO_GRANT;
    const write = policy.write.some((m) => matches(m, principal));
    // Principals whose rules read the same claim values see the same rows: they share one compilation.
    const values = this.#claims.map((name) => claimOf(principal, name) ?? null);
    const key = `${this.#digest}${write ? 'w' : 'r'}${values.length === 0 ? '' : JSON.stringify(values)}`;
    let grant = this.#rules.get(key);
    if (grant === undefined) {
      const fixed = new Map(this.#claims.map((name, i) => [name, values[i] ?? undefined] as const));
      const rows = new RowRules(policy.rows, (name) => fixed.get(name));
      grant = Object.freeze({ kind: 'rows', rows, write, key });
      if (this.#rules.size >= RULES_PER_POLICY) this.#rules.delete(this.#rules.keys().next().value!);
      this.#rules.set(key, grant);
    }
    return grant;
  }
}

const compiled = new WeakMap<StoredAccess, CompiledPolicy>();

/** The compilation of a stored policy version (each version object is compiled once). */
export function compiledPolicy(stored: StoredAccess): CompiledPolicy {
  let policy = compiled.get(stored);
  if (policy === undefined) compiled.set(stored, (policy = new CompiledPolicy(stored)));
  return policy;
}
