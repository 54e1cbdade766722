import type { CarrierAccess } from '../carrier/index.ts';
import { grantOf, type AccessSource } from './access-control.ts';

/** The visibility key of principals that see every row (kg:admin). */
const ADMIN_KEY = 'all';

/**
 * The carrier's access port: `null` when the graph's current read ACL denies the principal, else a
 * key naming what it sees. Principals with the same key see the same rows: the key is the policy's
 * digest, the write grant and the claim values its row rules read, so it changes with a policy edit
 * or a new group, and is shared by every principal the rules cannot tell apart.
 */
export function createCarrierAccess(source: AccessSource): CarrierAccess {
  return {
    visibility(principal, graph) {
      const grant = grantOf(source, graph, principal);
      if (grant.kind === 'none') return null;
      return grant.kind === 'all' ? ADMIN_KEY : grant.key;
    },
  };
}
