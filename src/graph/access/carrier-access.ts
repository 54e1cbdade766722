import type { Principal } from '../../principal/index.ts';
import { grantOf, type AccessSource } from './access-control.ts';

/** The visibility key of principals that see every row (kg:admin). */
const ADMIN_KEY = 'all';

/**
 * What a principal sees of a graph, as a key. It is the shape of the carrier's access port
 * (graph/carrier's `CarrierAccess`); serve/carrier-ports.ts plugs one into the other, so this module
 * needs nothing from the carrier.
 */
export interface VisibilityKeys {
  visibility(principal: Principal, graph: string): string | null;
}

/**
 * The carrier's access port: `null` when the graph's current read ACL denies the principal, else a
 * key naming what it sees. Principals with the same key see the same rows: the key is the policy's
 * digest, the write grant and the claim values its row rules read, so it changes with a policy edit
 * or a new group, and is shared by every principal the rules cannot tell apart.
 */
export function createCarrierAccess(source: AccessSource): VisibilityKeys {
  return {
    visibility(principal, graph) {
      const grant = grantOf(source, graph, principal);
      if (grant.kind === 'none') return null;
      return grant.kind === 'all' ? ADMIN_KEY : grant.key;
    },
  };
}
