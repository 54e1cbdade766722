import { ToolgraphError, toToolgraphError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import { inSpan } from '../../observability/tracing/index.ts';
import { WRITE_SCOPES, readScopes, requireScope, type Principal } from '../../principal/index.ts';
import { prepareCypher, runCypherJson, type CypherEngine, type RunOptions } from '../cypher/index.ts';
import { engineAs, type AccessSource } from '../access/index.ts';
import type { NativeRequest } from './native-request.ts';
import type { NativeErrorDetail, NativeResponse } from './native-response.ts';
import { RawJson } from './raw-json.ts';

/** One GraphQl call, as the GraphQL surface receives it from dispatch. */
interface GraphQlCall {
  readonly graph: string;
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>> | null;
  readonly principal: Principal;
  readonly agentId: string | null;
}

/**
 * The GraphQl method: returns the GraphQL execution result (`{data, errors?}`). It checks its own
 * scopes (reads vs mutations) with `requireScope` and `readScopes('graphql')` / `WRITE_SCOPES`.
 */
export type GraphQlHandler = (call: GraphQlCall) => Promise<unknown>;

export interface DispatchDeps {
  /** The graphs, with their access policies: Cypher runs on what the principal may see (src/graph/access). */
  readonly engine: CypherEngine & AccessSource;
  /** Absent until the GraphQL surface is wired: the GraphQl method then answers TG_REQUEST_INVALID. */
  readonly graphql?: GraphQlHandler;
  /** Internal faults are logged here (never the query text or graph name). */
  readonly logger?: Logger;
  /** Cypher options, the execution budget among them. */
  readonly cypher?: RunOptions;
}

function errorDetail(error: ToolgraphError): NativeErrorDetail {
  return error.details === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, details: error.details };
}

/**
 * The single entry point of every graph surface: runs a NativeRequest for a principal and answers a
 * NativeResponse. It never throws: every failure becomes the response's `error`.
 */
export async function dispatch(request: NativeRequest, principal: Principal, deps: DispatchDeps): Promise<NativeResponse> {
  const { id, idForm } = request;
  try {
    return { id, idForm, result: await run(request, principal, deps) };
  } catch (thrown) {
    const error = toToolgraphError(thrown);
    if (error.code === 'TG_INTERNAL') deps.logger?.error({ err: thrown, method: Object.keys(request.method)[0] }, 'dispatch failed');
    return { id, idForm, error: errorDetail(error) };
  }
}

function toRawJson(text: string): RawJson {
  return new RawJson(text);
}

/** Any scope that allows some Cypher statement: checked before the statement is even parsed. */
const ANY_CYPHER_SCOPE: readonly string[] = [...new Set([...readScopes('cypher'), ...WRITE_SCOPES])];
const CYPHER_READ_SCOPES = readScopes('cypher');

/** Runs the method; throws (or rejects) with what went wrong. Not async: the Cypher path adds no promise of its own. */
function run(request: NativeRequest, principal: Principal, deps: DispatchDeps): Promise<unknown> {
  const { method } = request;
  if ('Cypher' in method) {
    // One span per statement, from its parse to its result: whether it writes, never its text, parameters or graph.
    return inSpan('cypher', undefined, (span) => {
      // Scope checks need to know whether the statement writes, so parse first; parsing reads nothing.
      requireScope(principal, ANY_CYPHER_SCOPE, 'A Cypher query');
      const prepared = prepareCypher(method.Cypher.query, deps.cypher);
      span.set('toolgraph.cypher.writes', prepared.writes);
      if (prepared.writes) requireScope(principal, WRITE_SCOPES, 'A Cypher statement with CREATE, SET, REMOVE or DELETE');
      else requireScope(principal, CYPHER_READ_SCOPES, 'A Cypher read');
      return runCypherJson(engineAs(deps.engine, principal), request.graph, prepared, method.Cypher.params, deps.cypher).then(toRawJson);
    });
  }
  if (deps.graphql === undefined) {
    throw new ToolgraphError('TG_REQUEST_INVALID', 'The GraphQl method is not available yet on this server; send a Cypher method.', {
      details: { field: 'method', expected: 'Cypher', got: 'GraphQl' },
    });
  }
  return deps.graphql({
    graph: request.graph,
    query: method.GraphQl.query,
    variables: method.GraphQl.variables,
    principal,
    agentId: request.agentId,
  });
}
