import { ToolgraphError } from '../../errors/index.ts';
import type { CommitResult, GraphSummary } from '../engine/index.ts';
import { checkNamespace } from './namespace.ts';

/** What administration needs of the engine (GraphEngine has it). */
export interface NamespaceStore {
  namespace(graph: string): string | null;
  setNamespace(graph: string, namespace: string | null, expectedVersion?: number): Promise<CommitResult>;
  listGraphs(): GraphSummary[];
  view(graph: string): { readonly version: number };
}

/** A graph's namespace (null: none) at a graph version, as GET and PUT /graphs/{graph}/namespace answer it. */
export interface NamespaceRecord {
  readonly graph: string;
  readonly version: number;
  readonly namespace: string | null;
}

/** The graph's namespace and its current version (TG_GRAPH_NOT_FOUND when there is no graph). */
export function readNamespace(store: NamespaceStore, graph: string): NamespaceRecord {
  return { graph, version: store.view(graph).version, namespace: store.namespace(graph) };
}

/**
 * Validates `value` (a namespace, or null to remove it: TG_NAMESPACE_INVALID) and stores it as the
 * graph's namespace: one batch, durable, followed by every instance; the graph's GraphQL schema
 * and catalogue manifests follow. A namespace another graph of the store has is refused
 * (TG_NAMESPACE_TAKEN): both graphs would define the same names. Setting the namespace the graph
 * already has writes nothing.
 */
export async function replaceNamespace(store: NamespaceStore, graph: string, value: unknown): Promise<NamespaceRecord> {
  const namespace = checkNamespace(value);
  const current = store.namespace(graph);
  if (current === namespace) return readNamespace(store, graph);
  if (namespace !== null) {
    for (const other of store.listGraphs()) {
      if (other.name !== graph && store.namespace(other.name) === namespace) {
        throw new ToolgraphError('TG_NAMESPACE_TAKEN',
          `Graph "${other.name}" already has the namespace "${namespace}": two graphs with one namespace define the same GraphQL types and fields, so they would not compose into one supergraph. Choose another namespace for "${graph}".`,
          { details: { namespace, graph: other.name } });
      }
    }
  }
  const committed = await store.setNamespace(graph, namespace);
  return { graph, version: committed.version, namespace };
}
