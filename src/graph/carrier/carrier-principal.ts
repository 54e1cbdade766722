import type { Principal } from '../../principal/index.ts';

/**
 * Who a carrier session runs as: the signed context of its envelope (subject, scopes, groups).
 * A `Principal` with groups, so the scope checks of dispatch apply unchanged.
 */
export interface CarrierPrincipal extends Principal {
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly groups: readonly string[];
}
