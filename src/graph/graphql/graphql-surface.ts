import type { IncomingMessage } from 'node:http';
import type { ResolvedValues } from '../../config/index.ts';
import type { HttpService } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Principal } from '../../principal/index.ts';
import { RawJson, type GraphQlHandler } from '../dispatch/index.ts';
import type { ExecutionMeter } from './exec-state.ts';
import { graphqlOptionsFrom } from './graphql-options.ts';
import { GraphqlPipeline } from './graphql-pipeline.ts';
import { createGraphqlService } from './graphql-service.ts';
import { defaultPersistedDocumentsFile, loadTrustedDocuments } from './trusted-documents.ts';
import type { GraphqlEngine } from './visible-view.ts';

export interface GraphqlSurfaceOptions {
  readonly engine: GraphqlEngine;
  readonly logger: Logger;
  readonly values: ResolvedValues;
  readonly resolvePrincipal: (req: IncomingMessage) => Promise<Principal>;
  /** The execution budget seam: a meter per request (default: none). */
  readonly meter?: () => ExecutionMeter;
}

export interface GraphqlSurface {
  readonly pipeline: GraphqlPipeline;
  /** `/graphql/{graph}` on the shared host. */
  readonly service: HttpService;
  /** The GraphQl method of `/dispatch`: the same pipeline, the same response bytes. */
  readonly dispatch: GraphQlHandler;
  /** The trusted documents the pipeline runs (sha256 → text), read once at start-up; the tool server lists them as operation tools. */
  readonly trustedDocuments: ReadonlyMap<string, string>;
}

/** The GraphQL handler of POST /dispatch: its result is the exact body /graphql/{graph} answers. */
export function graphqlDispatchHandler(pipeline: GraphqlPipeline): GraphQlHandler {
  return async (call) => {
    const params: Record<string, unknown> = { query: call.query };
    if (call.variables !== null) params['variables'] = call.variables;
    const response = await pipeline.run({ graph: call.graph, principal: call.principal, method: 'POST', params });
    return new RawJson(response.body);
  };
}

/** Builds the GraphQL surface from the resolved settings (trusted documents read once, at start-up). */
export function createGraphqlSurface(options: GraphqlSurfaceOptions): GraphqlSurface {
  const file = options.values.graphqlPersistedDocuments ?? defaultPersistedDocumentsFile();
  const trusted = file === undefined ? new Map<string, string>() : loadTrustedDocuments(file);
  const pipeline = new GraphqlPipeline({
    engine: options.engine,
    logger: options.logger,
    options: graphqlOptionsFrom(options.values, trusted),
    ...(options.meter ? { meter: options.meter } : {}),
  });
  return {
    pipeline,
    service: createGraphqlService({ pipeline, logger: options.logger, resolvePrincipal: options.resolvePrincipal }),
    dispatch: graphqlDispatchHandler(pipeline),
    trustedDocuments: trusted,
  };
}
