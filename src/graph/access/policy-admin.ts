import type { AccessDocument, CommitResult, StoredAccess } from '../engine/index.ts';
import { checkAccessPolicy, type AccessPolicy } from './check-policy.ts';

/** What administration needs of the engine (GraphEngine has it). */
export interface PolicyStore {
  access(graph: string): StoredAccess | null;
  setAccess(graph: string, policy: AccessDocument | null, expectedVersion?: number): Promise<CommitResult>;
}

/** A graph's policy and its version (the graph version whose batch stored it), as GET /graphs/{graph}/access answers it. */
export interface PolicyRecord {
  readonly graph: string;
  readonly version: number;
  readonly policy: AccessPolicy;
}

/** The stored policy of a graph, or null when it has none (TG_GRAPH_NOT_FOUND when there is no graph). */
export function readAccessPolicy(store: PolicyStore, graph: string): PolicyRecord | null {
  const stored = store.access(graph);
  return stored === null ? null : { graph, version: stored.version, policy: stored.policy as unknown as AccessPolicy };
}

/**
 * Validates `value` against specs/access-policy.schema.json (TG_ACCESS_POLICY_INVALID with the JSON
 * pointer) and stores it as the graph's policy: one batch, durable, seen by every instance.
 */
export async function replaceAccessPolicy(store: PolicyStore, graph: string, value: unknown): Promise<PolicyRecord> {
  const policy = checkAccessPolicy(value);
  const committed = await store.setAccess(graph, policy as unknown as AccessDocument);
  return { graph, version: committed.version, policy };
}

/** The policy the seeded `demo` graph gets, so the tour works with real tokens: anyone signed in reads every row; kg:write holders write. */
export const OPEN_POLICY: AccessPolicy = Object.freeze({
  version: 1,
  read: [{ anyone: true }],
  write: [{ scope: 'kg:write' }],
  rows: { '*': true },
}) as AccessPolicy;
