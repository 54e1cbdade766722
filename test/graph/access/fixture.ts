import type { AccessPolicy } from '../../../src/graph/access/index.ts';
import { answerNativeRequest, parseNativeRequest } from '../../../src/graph/dispatch/index.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import type { GraphqlPipeline } from '../../../src/graph/graphql/index.ts';
import type { Principal } from '../../../src/principal/index.ts';

/** Runs GraphQL through the whole pipeline and answers the parsed body (with version, unless `stripVersion`). */
export async function gql(pipeline: GraphqlPipeline, graph: string, principal: Principal, query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>> {
  try {
    const response = await pipeline.run({ graph, principal, method: 'POST', params: { query, ...(variables ? { variables } : {}) } });
    return JSON.parse(response.body) as Record<string, unknown>;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return { refused: { code, message } };
  }
}

/** Runs a Cypher statement through the native dispatch (the path of POST /dispatch) and answers the parsed NativeResponse. */
export async function cypher(engine: GraphEngine, graph: string, principal: Principal, query: string): Promise<Record<string, unknown>> {
  const text = JSON.stringify({ id: 1, graph, method: { Cypher: { query } } });
  return JSON.parse((await answerNativeRequest(parseNativeRequest(text), principal, { engine })).text) as Record<string, unknown>;
}

/** A body without the graph versions it reports (the oracle graph is built with other versions). */
export function withoutVersion(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body, (key, value: unknown) => (key === 'version' ? undefined : value)));
}

export const ADMIN: Principal = { subject: 'root', scopes: ['kg:admin'] };

/** The teams policy of the docs: Documents by team membership, People to anyone granted, Topics hidden (no rule). */
export const TEAM_POLICY: AccessPolicy = {
  version: 1,
  read: [{ group: 'red' }, { group: 'blue' }],
  write: [{ group: 'red' }],
  rows: {
    Document: { in: [{ row: 'team' }, { claim: 'groups' }] },
    Person: true,
  },
};

/** People p1..p3; documents of teams red and blue and one without a team; one topic (no row rule); authored, linked edges. */
export async function seedTeams(engine: GraphEngine, graph: string): Promise<void> {
  await engine.createGraph(graph);
  await engine.commit({
    graph,
    mutations: [
      { op: 'createNode', id: 'p1', label: 'Person', props: { name: 'Ann' } },
      { op: 'createNode', id: 'p2', label: 'Person', props: { name: 'Bo' } },
      { op: 'createNode', id: 'p3', label: 'Person', props: { name: 'Cy' } },
      { op: 'createNode', id: 'd1', label: 'Document', props: { title: 'red one', team: 'red' } },
      { op: 'createNode', id: 'd2', label: 'Document', props: { title: 'blue one', team: 'blue' } },
      { op: 'createNode', id: 'd3', label: 'Document', props: { title: 'red two', team: 'red' } },
      { op: 'createNode', id: 'd4', label: 'Document', props: { title: 'blue two', team: 'blue' } },
      { op: 'createNode', id: 'd5', label: 'Document', props: { title: 'nobody\'s' } },
      { op: 'createNode', id: 'd6', label: 'Document', props: { title: 'red three', team: 'red' } },
      { op: 'createNode', id: 't1', label: 'Topic', props: { name: 'secret topic' } },
      { op: 'addEdge', src: 'p1', tgt: 'd1', type: 'AUTHORED' },
      { op: 'addEdge', src: 'p1', tgt: 'd2', type: 'AUTHORED' },
      { op: 'addEdge', src: 'p2', tgt: 'd4', type: 'AUTHORED' },
      { op: 'addEdge', src: 'p2', tgt: 'd5', type: 'AUTHORED' },
      { op: 'addEdge', src: 'p3', tgt: 'd6', type: 'AUTHORED' },
      { op: 'addEdge', src: 'd2', tgt: 'd1', type: 'CITES' },
      { op: 'addEdge', src: 'd3', tgt: 'd1', type: 'CITES' },
      { op: 'addEdge', src: 'p1', tgt: 't1', type: 'LIKES' },
    ],
  });
}
