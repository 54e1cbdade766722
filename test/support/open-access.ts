import { OPEN_POLICY, replaceAccessPolicy, type PolicyStore } from '../../src/graph/access/index.ts';

/**
 * Gives a test graph the open policy the seeded demo graph gets (anyone reads every row; kg:write
 * holders write), for tests about something other than access that call as non-admin principals.
 */
export async function openAccess(engine: PolicyStore, graph: string): Promise<void> {
  await replaceAccessPolicy(engine, graph, OPEN_POLICY);
}
