import { resolveConfig } from '../../../src/config/index.ts';
import { createGraphService } from '../../../src/graph/service/index.ts';
import type { GraphEngine, GraphView } from '../../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../../src/graph/fixtures/index.ts';
import {
  GraphqlPipeline, createGraphqlService, graphqlDispatchHandler, graphqlOptionsFrom,
  type GraphqlOptions,
} from '../../../src/graph/graphql/index.ts';
import { defaultPersistedDocumentsFile, loadTrustedDocuments } from '../../../src/graph/graphql/index.ts';
import { startHost, type RunningHost } from '../../../src/http/index.ts';
import { silentLogger, type Logger } from '../../../src/log/index.ts';
import type { Principal } from '../../../src/principal/index.ts';
import { openEngine } from '../engine/helpers.ts';

export const LOCAL: Principal = { subject: 'local', scopes: ['*'] };

/** An engine (memory persistence, deterministic ids) holding the reference graph as `demo`. */
export async function referenceEngine(): Promise<GraphEngine> {
  const engine = await openEngine();
  await loadReferenceGraph(engine, 'demo');
  return engine;
}

/** GraphQL options from the settings' defaults (env given), with overrides. */
export function graphqlOptions(env: Record<string, string> = {}, overrides: Partial<GraphqlOptions> = {}): GraphqlOptions {
  const values = resolveConfig({ env: { HOME: '/nonexistent', ...env } }).values;
  const file = defaultPersistedDocumentsFile();
  return { ...graphqlOptionsFrom(values, file ? loadTrustedDocuments(file) : new Map()), ...overrides };
}

export function pipelineFor(engine: GraphEngine, options: GraphqlOptions = graphqlOptions(), logger: Logger = silentLogger()): GraphqlPipeline {
  return new GraphqlPipeline({ engine, logger, options });
}

export interface Body {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; details?: Record<string, unknown> } }[];
  extensions?: { version?: number };
}

/** Runs a document through the whole pipeline as a POST would, and parses the response body. */
export async function graphql(pipeline: GraphqlPipeline, query: string, variables?: Record<string, unknown>, principal: Principal = LOCAL, graph = 'demo'): Promise<Body> {
  const response = await pipeline.run({ graph, principal, method: 'POST', params: { query, ...(variables ? { variables } : {}) } });
  return JSON.parse(response.body) as Body;
}

export interface Server {
  readonly origin: string;
  readonly url: string;
  readonly pipeline: GraphqlPipeline;
  readonly host: RunningHost;
  close(): Promise<void>;
}

/** /graphql/{graph} and /dispatch (with the GraphQl method) on a host on a free loopback port. */
export async function startServer(engine: GraphEngine, options: GraphqlOptions = graphqlOptions(), principal: Principal = LOCAL): Promise<Server> {
  const logger = silentLogger();
  const pipeline = pipelineFor(engine, options, logger);
  const resolvePrincipal = async () => principal;
  const host = await startHost({
    host: '127.0.0.1', port: 0, logger,
    services: [
      createGraphqlService({ pipeline, logger, resolvePrincipal }),
      createGraphService({ engine, logger, resolvePrincipal, graphql: graphqlDispatchHandler(pipeline) }),
    ],
  });
  return { origin: host.origin, url: `${host.origin}/graphql/demo`, pipeline, host, close: () => host.close() };
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; text: string; body: Body }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: Body = {};
  try {
    parsed = JSON.parse(text) as Body;
  } catch {
    // not JSON: the test looks at text
  }
  return { status: res.status, type: res.headers.get('content-type'), text, body: parsed };
}

/** Counts what a request reads, by wrapping the engine's views. */
export function counting(base: GraphEngine): { engine: GraphEngine; calls: Record<string, number> } {
  const calls: Record<string, number> = { scan: 0, expandEach: 0, expand: 0, node: 0, edges: 0 };
  const engine = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop !== 'view') {
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (graph: string) => {
        const view = target.view(graph);
        return new Proxy(view, {
          get(v, p) {
            const value = Reflect.get(v, p, v) as unknown;
            if (typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              if (typeof p === 'string' && p in calls) calls[p]!++;
              return (value as (...a: unknown[]) => unknown).apply(v, args);
            };
          },
        }) as GraphView;
      };
    },
  });
  return { engine, calls };
}

