import type { CarrierAccess, CarrierPrincipal } from '../../src/graph/carrier/index.ts';

/**
 * A stand-in for the access module (issue 9), for tests and the carrier benchmark only.
 * - `allow-all`: every principal may read every graph.
 * - `by-scope`: a principal may read graph G only while it holds the scope `acl:G`.
 * Either way a subject can be revoked and restored at run time, and granted extra groups (as an
 * access module might after a policy change). The visibility key is the principal's sorted groups
 * (signed plus granted), which is what `teamRowsOf(access)` filters rows by.
 */
export class TestAccess implements CarrierAccess {
  readonly mode: 'allow-all' | 'by-scope';
  readonly revoked = new Set<string>();
  /** Groups granted to a subject beyond its signed ones. */
  readonly granted = new Map<string, string[]>();
  calls = 0;

  constructor(mode: 'allow-all' | 'by-scope' = 'allow-all') {
    this.mode = mode;
  }

  visibility(principal: CarrierPrincipal, graph: string): string | null {
    this.calls++;
    if (this.revoked.has(principal.subject)) return null;
    if (this.mode === 'by-scope' && !principal.scopes.includes(`acl:${graph}`)) return null;
    return this.groupsOf(principal).join(',');
  }

  /** The principal's signed and granted groups, sorted. */
  groupsOf(principal: CarrierPrincipal): string[] {
    return [...new Set([...principal.groups, ...(this.granted.get(principal.subject) ?? [])])].sort();
  }
}
