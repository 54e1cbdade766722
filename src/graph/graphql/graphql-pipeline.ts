import { createInMemoryAPQStore, useAPQ } from '@graphql-yoga/plugin-apq';
import { WRITE_SCOPES, readScopes, requireScope, type Principal } from '../../principal/index.ts';
import { mayRead } from '../access/index.ts';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GraphQLError, validate, type DocumentNode, type ExecutionResult, type OperationDefinitionNode, type ValidationRule } from 'graphql';
import { YogaServer, type GraphQLParams, type Plugin, type YogaLogger } from 'graphql-yoga';
import { SETTINGS } from '../../config/index.ts';
import { sha256Hex } from '../../digest/index.ts';
import { ToolgraphError, describeValue, isToolgraphError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import { errorTypeOf, inSpan, type SpanHandle } from '../../observability/tracing/index.ts';
import { UNMETERED, type ExecutionMeter } from './exec-state.ts';
import { executeOperation, selectOperation, type GraphqlRequestContext } from './execute-operation.ts';
import { checkParams, requireQuery } from './check-params.ts';
import { gateOperation } from './operation-gate.ts';
import { OperationPricing } from './price-operation.ts';
import { GraphSchemaCache } from './graph-schema-builder.ts';
import { warmSchemaAssembly } from './schema-assembler.ts';
import { PreparedDocuments } from './prepared-documents.ts';
import { formatError, graphqlError, httpHintOf, placeOf, toGraphQLError } from './graphql-errors.ts';
import type { GraphqlOptions } from './graphql-options.ts';
import { useGraphValidation } from './use-graph-validation.ts';
import { limitPlugins, limitRules } from './use-limits.ts';
import { jsonTextSteps } from './json-text.ts';
import { COMMIT_SLICE_MS, runSliced } from '../engine/index.ts';

export interface GraphqlPipelineOptions {
  readonly engine: GraphqlRequestContext['engine'];
  readonly logger: Logger;
  readonly options: GraphqlOptions;
  /** A meter per request: the execution budget seam (see exec-state.ts). Default: none. */
  readonly meter?: () => ExecutionMeter;
}

/** One GraphQL-over-HTTP request, transport-neutral: the GraphQl dispatch method makes the same. */
export interface GraphqlRequest {
  readonly graph: string;
  readonly principal: Principal;
  readonly method: 'GET' | 'POST';
  /** The request parameters: query, operationName, variables, extensions, documentId. */
  readonly params: Record<string, unknown>;
}

/** A GraphQL response: its exact JSON text, and what decides the HTTP status. */
export interface GraphqlResponse {
  readonly body: string;
  /** The body's length in UTF-8 bytes (counted once, for the result budget and Content-Length). */
  readonly bodyBytes: number;
  readonly errors: readonly GraphQLError[];
  /** Whether the response has a `data` entry (even null): a request error has none. */
  readonly hasData: boolean;
}

const NO_ERRORS: readonly GraphQLError[] = Object.freeze([]);
const ANY_GRAPHQL_SCOPE = [...new Set([...readScopes('graphql'), ...WRITE_SCOPES])];

/** Apollo's protocol codes that clients act on (a hash miss makes them resend the text): kept as they are. */
const PROTOCOL_CODES = new Set(['PERSISTED_QUERY_NOT_FOUND']);

function yogaLogger(logger: Logger): YogaLogger {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...args: unknown[]) => logger.warn({ err: args[0] }, 'graphql pipeline warning'),
    error: (...args: unknown[]) => logger.error({ err: args[0] }, 'graphql request failed'),
  };
}

/** Keeps GraphQL errors and our refusals; anything else is an internal fault, masked (Yoga logs it). */
function maskError(error: unknown): Error {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (original === undefined || original === null || original instanceof GraphQLError) return error;
    if (isToolgraphError(original) && original.code !== 'TG_INTERNAL') return error;
    return graphqlError('TG_INTERNAL', 'Internal server error.', { nodes: error.nodes, path: error.path, http: { status: 500 } });
  }
  if (isToolgraphError(error) && error.code !== 'TG_INTERNAL') return toGraphQLError(error);
  return graphqlError('TG_INTERNAL', 'Internal server error.', { http: { status: 500 } });
}

/** The fault under the wrappers (GraphQLError.originalError, Error.cause), for the log. */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let i = 0; i < 10; i++) {
    const next = current instanceof GraphQLError ? current.originalError : current instanceof Error ? current.cause : undefined;
    if (next === undefined || next === null) return current;
    current = next;
  }
  return current;
}

/**
 * APQ's hook returns at once without `extensions.persistedQuery`, but as an async function it
 * still costs a promise and a turn of the event loop per request: call it only when it has work.
 */
function onlyWithPersistedQuery(plugin: Plugin): Plugin {
  const hook = plugin.onParams;
  if (hook === undefined) return plugin;
  return {
    ...plugin,
    onParams(payload) {
      const extensions = payload.params.extensions as { persistedQuery?: unknown } | undefined;
      return extensions?.persistedQuery === undefined ? undefined : hook(payload);
    },
  };
}

/** The persisted-document id of a request: GraphQL-over-HTTP's documentId, or Apollo's extension. */
function documentIdOf(params: GraphQLParams & { documentId?: unknown }): string | null {
  if (typeof params.documentId === 'string') return params.documentId.replace(/^sha256:/, '');
  const pq = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return pq?.version === 1 && typeof pq.sha256Hash === 'string' ? pq.sha256Hash : null;
}

/**
 * Persisted-only mode accepts the exact text of a trusted document as if it were its id (the
 * GraphQl dispatch method has no extensions to carry an id); any other text stays and is refused.
 */
function useTrustedText(trusted: ReadonlyMap<string, string>): Plugin {
  return {
    onParams({ params, setParams }) {
      if (typeof params.query !== 'string') return;
      const id = sha256Hex(params.query);
      if (!trusted.has(id)) return;
      const { query: _query, ...rest } = params;
      setParams({ ...rest, documentId: id } as GraphQLParams);
    },
  };
}

/** The document-size cap, after APQ and trusted documents resolved the text and before parsing. */
function useQueryTextCap(maxBytes: number, envName: string): Plugin {
  return {
    onParams({ params }) {
      if (typeof params.query !== 'string' || params.query.length * 3 <= maxBytes) return;
      const bytes = Buffer.byteLength(params.query, 'utf8');
      if (bytes <= maxBytes) return;
      throw graphqlError('TG_QUERY_TOO_COMPLEX',
        `The GraphQL document is ${bytes} bytes; at most ${maxBytes} are accepted (${envName}). Nothing was parsed or executed.`,
        { details: { limit: 'queryBytes', max: maxBytes, found: bytes }, http: { status: 400, spec: true } });
    },
  };
}

/** APQ's mismatch in our words; Apollo clients only act on the not-found code, which stays. */
function normalize(error: GraphQLError): GraphQLError {
  const code = error.extensions?.['code'];
  const hint = httpHintOf(error);
  // A field error (it has a path) never changes the HTTP status: the response still has data.
  const http = error.path === undefined ? hint : undefined;
  if (typeof code === 'string' && (code.startsWith('TG_') || PROTOCOL_CODES.has(code))) {
    if (http === hint) return error;
    const { http: _http, ...extensions } = error.extensions;
    return new GraphQLError(error.message, { ...placeOf(error), originalError: error.originalError ?? null, extensions });
  }
  let ours: { code: string; message: string };
  switch (code) {
    case 'PERSISTED_QUERY_MISMATCH':
      ours = { code: 'TG_PERSISTED_QUERY_MISMATCH', message: 'APQ: the query text does not hash to extensions.persistedQuery.sha256Hash; send the sha256 (hex) of the exact text.' };
      break;
    case 'BAD_REQUEST':
      ours = { code: hint?.status === 405 ? 'TG_METHOD_NOT_ALLOWED' : 'TG_BAD_REQUEST', message: error.message };
      break;
    case 'GRAPHQL_PARSE_FAILED':
    case 'GRAPHQL_VALIDATION_FAILED':
    case 'OPERATION_RESOLUTION_FAILURE':
      ours = { code: 'TG_GRAPHQL_INVALID', message: error.message };
      break;
    default:
      ours = { code: hint?.status === 500 || hint === undefined ? 'TG_INTERNAL' : 'TG_BAD_REQUEST', message: error.message };
  }
  return new GraphQLError(ours.message, {
    ...placeOf(error), originalError: error.originalError ?? null,
    extensions: { ...error.extensions, code: ours.code, ...(http ? { http } : {}) },
  });
}

/** The response text: errors first (as graphql-js orders them), then data, then extensions. */
function serialize(result: ExecutionResult, errors: readonly GraphQLError[]): string {
  const out: Record<string, unknown> = {};
  if (errors.length > 0) out['errors'] = errors.map(formatError);
  if ('data' in result && result.data !== undefined) out['data'] = result.data;
  if (result.extensions !== undefined) out['extensions'] = result.extensions;
  return JSON.stringify(out);
}

/**
 * `serialize`, writing the data in slices between turns of the event loop (json-text.ts): the same
 * text, but a result of megabytes does not hold the loop while it is written. Synchronous (no
 * promise) when the data is written within one slice.
 */
/** Below this many charged bytes a result is serialised in one go (about a millisecond of JSON.stringify). */
const WHOLE_SERIALIZE_BYTES = 256 * 1024;

function serializeSliced(result: ExecutionResult, errors: readonly GraphQLError[]): string | Promise<string> {
  if (!('data' in result) || result.data === undefined || result.data === null) return serialize(result, errors);
  const head = errors.length > 0 ? `{"errors":${JSON.stringify(errors.map(formatError))},"data":` : '{"data":';
  const tail = result.extensions === undefined ? '}' : `,"extensions":${JSON.stringify(result.extensions)}}`;
  const steps = jsonTextSteps(result.data);
  const started = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return head + next.value + tail;
    if (performance.now() - started >= COMMIT_SLICE_MS) return runSliced(steps).then((data) => head + data + tail);
  }
}

type OnParams = (payload: Record<string, unknown>) => unknown;

const NOTHING = (): undefined => undefined;
/** What Yoga's hooks read of the request: its method (no mutations over GET); no fetch Request is built. */
const GET_REQUEST = Object.freeze({ method: 'GET', headers: new Map<string, string>() });
const POST_REQUEST = Object.freeze({ method: 'POST', headers: new Map<string, string>() });

/**
 * The GraphQL pipeline every surface shares (`/graphql/{graph}` over HTTP and the GraphQl method
 * of `/dispatch`), with no fetch Request built:
 * 1. Yoga's onParams chain: trusted text (persisted-only mode), APQ, trusted documents, the
 *    document-size cap, the parameter checks. A plain request (query text under the cap, with
 *    operationName and variables at most) would leave it unchanged, and skips it.
 * 2. Yoga's envelop pipeline parses and validates (its parser and validation caches, graphql-armor's
 *    limits and ours, TG_ codes). A document that passed is kept per schema and text, so a repeat
 *    skips straight to step 3, as graphql-jit's compiled queries do in Mercurius.
 * 3. The per-request gate (GET mutations, subscriptions, scopes), then our executor.
 */
export class GraphqlPipeline {
  readonly #engine: GraphqlRequestContext['engine'];
  readonly #schemas = new GraphSchemaCache();
  readonly #prepared = new PreparedDocuments(1000);
  readonly #yoga: YogaServer<Record<string, unknown>, Record<string, unknown>>;
  readonly #onParams: OnParams[];
  readonly #meter: () => ExecutionMeter;
  readonly #pricing: OperationPricing;
  /** The shape limits, run alone before full validation. */
  readonly #limitRules: ValidationRule[];
  readonly #logger: Logger;
  readonly options: GraphqlOptions;

  constructor(pipeline: GraphqlPipelineOptions) {
    warmSchemaAssembly();
    const { options, logger } = pipeline;
    this.#engine = pipeline.engine;
    this.#meter = pipeline.meter ?? (() => UNMETERED);
    this.#pricing = new OperationPricing(options.limits);
    this.#limitRules = limitRules(options.limits);
    this.#logger = logger;
    this.options = options;
    const trusted = options.trustedDocuments;
    // The plugin's own store (lru-cache): most recently used first, no expiry (ttl 0), as the setting documents.
    const apqStore = createInMemoryAPQStore({ max: options.apqMaxEntries, ttl: 0 });
    const paramsPlugins: Plugin[] = [
      { onParams: ({ params }) => { checkParams(params as Record<string, unknown>); } },
      ...(options.persistedOnly ? [useTrustedText(trusted)] : []),
      // APQ registers free text, so persisted-only mode leaves it out; trusted documents count as registered.
      ...(options.persistedOnly ? [] : [onlyWithPersistedQuery(useAPQ({
        store: { get: (hash: string) => trusted.get(hash) ?? apqStore.get(hash) ?? null, set: (hash: string, query: string) => apqStore.set(hash, query) },
        hash: (text: string) => sha256Hex(text),
      }) as Plugin)]),
      usePersistedOperations({
        allowArbitraryOperations: !options.persistedOnly,
        extractPersistedOperationId: (params) => documentIdOf(params),
        getPersistedOperation: (id) => trusted.get(id) ?? null,
        customErrors: {
          notFound: (payload) => graphqlError('TG_PERSISTED_QUERY_NOT_FOUND',
            `No trusted document has the id ${describeValue(documentIdOf(payload.params))}; ids are the sha256 keys of persisted-documents.json (npm run codegen).`, { http: { status: 400 } }),
          keyNotFound: () => graphqlError('TG_BAD_REQUEST',
            'The request has no GraphQL document: send query (the text), or documentId (a trusted document\'s sha256), or extensions.persistedQuery.', { http: { status: 400 } }),
          persistedQueryOnly: () => graphqlError('TG_PERSISTED_ONLY',
            'This endpoint runs in persisted-only mode: send documentId (or extensions.persistedQuery.sha256Hash) of a trusted document from persisted-documents.json, or its exact text; other documents are refused.', { http: { status: 400 } }),
        },
      }) as Plugin,
      useQueryTextCap(options.limits.maxQueryBytes, SETTINGS.graphqlMaxQueryBytes.env!),
      { onParams: ({ params }) => { requireQuery(params as Record<string, unknown>); } },
    ];
    this.#onParams = paramsPlugins.flatMap((p) => (p.onParams ? [p.onParams as unknown as OnParams] : []));
    // Yoga's options accept any plugin object; envelop's, Yoga's and ours differ only in context typing.
    const plugins: object[] = [...limitPlugins(options.limits, options.introspection), useGraphValidation(options.introspection)];
    this.#yoga = new YogaServer<Record<string, unknown>, Record<string, unknown>>({
      plugins,
      maskedErrors: { maskError },
      logging: yogaLogger(logger),
      graphiql: false,
      landingPage: false,
      cors: false,
      batching: false,
      multipart: false,
    });
  }

  /** The GraphQL schema a request to `graph` runs against now (its catalogue epoch's). */
  schemaOf(graph: string): GraphqlRequestContext['graphSchema'] {
    return this.#schemas.get(this.#engine.view(graph).catalogue, graph);
  }

  /**
   * Refuses a graph that does not exist or that `principal` may not read (its access policy), with
   * the same TG_GRAPH_NOT_FOUND either way, so a name says nothing to those who may not read it.
   */
  requireReadable(graph: string, principal: Principal): void {
    if (!this.#engine.hasGraph(graph) || !mayRead(this.#engine, graph, principal)) {
      throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named ${describeValue(graph)}; each graph is served at /graphql/{graph} (toolgraph graph list names them).`);
    }
  }

  /**
   * Runs one request. Refusals before GraphQL (no such graph, no GraphQL scope at all) throw a
   * ToolgraphError; everything else is a GraphQL response.
   */
  async run(request: GraphqlRequest): Promise<GraphqlResponse> {
    const { graph, principal } = request;
    this.requireReadable(graph, principal);
    requireScope(principal, ANY_GRAPHQL_SCOPE, 'A GraphQL request');
    const catalogue = this.#engine.view(graph).catalogue;
    // After a schema change the next request builds the new schema, once for a burst of changes,
    // spreading a large first build over turns of the event loop (see GraphSchemaCache.load).
    const graphSchema = this.#schemas.cached(catalogue, graph) ?? await this.#schemas.load(catalogue, graph);
    const meter = this.#meter();
    const context: GraphqlRequestContext = {
      graph, principal, engine: this.#engine, graphSchema, meter, pricing: this.#pricing, listLimit: this.options.limits.listLimit,
    };
    let result: ExecutionResult;
    try {
      // Most requests run synchronously from here (a prepared document, a query): no promise to wait for.
      const executed = this.#execute(request, context);
      result = executed instanceof Promise ? await executed : executed;
    } catch (error) {
      result = { errors: [this.#masked(error)] };
    }
    let errors = result.errors === undefined ? NO_ERRORS : result.errors.map((e) => normalize(e.originalError && !(e.originalError instanceof GraphQLError) ? this.#masked(e) : e));
    // A result charged small is written by JSON.stringify at once (native, several times faster than
    // the sliced writer); a large one, or one nobody counted, in slices between turns of the loop.
    const charged = meter.chargedBytes;
    const serialized = charged !== undefined && charged < WHOLE_SERIALIZE_BYTES ? serialize(result, errors) : serializeSliced(result, errors);
    let body = typeof serialized === 'string' ? serialized : await serialized;
    let bodyBytes = Buffer.byteLength(body);
    try {
      if (meter !== UNMETERED) meter.resultBytes(bodyBytes);
    } catch (error) {
      errors = [toGraphQLError(error)];
      result = { errors };
      body = serialize(result, errors);
      bodyBytes = Buffer.byteLength(body);
    }
    return { body, bodyBytes, errors, hasData: 'data' in result && result.data !== undefined };
  }

  /** Our refusals and GraphQL errors stay; anything else is logged and masked as TG_INTERNAL. */
  #masked(error: unknown): GraphQLError {
    const masked = maskError(error);
    if (masked !== error) this.#logger.error({ err: rootCause(error) }, 'graphql request failed');
    return toGraphQLError(masked);
  }

  /**
   * True when the onParams chain would leave these parameters as they are: a non-empty query text
   * under the size cap, with at most operationName and variables of the right types beside it (no
   * extensions, no documentId) and no persisted-only mode. Such a request (nearly every one) skips
   * the chain; anything else goes through it.
   */
  #plain(params: Record<string, unknown>): boolean {
    if (this.options.persistedOnly) return false;
    for (const key in params) {
      const value = params[key];
      if (key === 'query') {
        if (typeof value !== 'string' || value === '' || value.length * 3 > this.options.limits.maxQueryBytes) return false;
      } else if (key === 'operationName') {
        if (value !== undefined && value !== null && typeof value !== 'string') return false;
      } else if (key === 'variables') {
        if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) return false;
      } else return false;
    }
    return typeof params['query'] === 'string';
  }

  /** The parameters after the onParams chain (trusted text, APQ, trusted documents, the size cap, the checks). */
  #paramsOf(request: GraphqlRequest, context: GraphqlRequestContext): GraphQLParams | Promise<GraphQLParams> {
    if (this.#plain(request.params)) return request.params as GraphQLParams;
    // Yoga's hooks read request.method and hand the request to our callbacks; no fetch Request is needed.
    const requestLike = request.method === 'GET' ? GET_REQUEST : POST_REQUEST;
    // One payload for the whole chain (hooks read payload.params when they run).
    const payload: Record<string, unknown> = {
      params: request.params as GraphQLParams, request: requestLike, context, fetchAPI: this.#yoga.fetchAPI,
      paramsHandler: undefined, setParamsHandler: NOTHING, setResult: NOTHING,
    };
    payload['setParams'] = (next: GraphQLParams): void => {
      payload['params'] = next;
    };
    const hooks = this.#onParams;
    const from = (start: number): GraphQLParams | Promise<GraphQLParams> => {
      for (let i = start; i < hooks.length; i++) {
        const pending = hooks[i]!(payload);
        if (pending !== undefined && typeof (pending as Promise<unknown>).then === 'function') return (pending as Promise<unknown>).then(() => from(i + 1));
      }
      return payload['params'] as GraphQLParams;
    };
    return from(0);
  }

  #execute(request: GraphqlRequest, context: GraphqlRequestContext): ExecutionResult | Promise<ExecutionResult> {
    const params = this.#paramsOf(request, context);
    return params instanceof Promise ? params.then((p) => this.#executeParams(p, request, context)) : this.#executeParams(params, request, context);
  }

  #executeParams(params: GraphQLParams, request: GraphqlRequest, context: GraphqlRequestContext): ExecutionResult | Promise<ExecutionResult> {
    const requestLike = request.method === 'GET' ? GET_REQUEST : POST_REQUEST;
    const query = params.query as string;
    const operationName = typeof params.operationName === 'string' ? params.operationName : undefined;
    const schema = context.graphSchema.schema;
    let prepared = this.#prepared.get(schema, operationName ?? '', query);
    if (prepared === undefined) {
      const envelopContext = Object.assign(context, { request: requestLike, params });
      const enveloped = this.#yoga.getEnveloped(envelopContext);
      let failure: unknown;
      const document = inSpan('graphql.parse', undefined, (span): DocumentNode | undefined => {
        try {
          return enveloped.parse(query);
        } catch (error) {
          failure = error;
          span.fail(graphqlErrorType(error));
          return undefined;
        }
      });
      if (document === undefined) return { errors: [failure instanceof GraphQLError ? failure : this.#masked(failure)] };
      const invalid = inSpan('graphql.validate', undefined, (span) => {
        // The shape limits alone first: past one, graphql-js's quadratic rules never run (limitRules).
        const overLimit = validate(enveloped.schema, document, this.#limitRules);
        const found = overLimit.length > 0 ? overLimit : enveloped.validate(enveloped.schema, document);
        if (found.length > 0) span.fail(graphqlErrorType(found[0]));
        return found;
      });
      if (invalid.length > 0) return { errors: [...invalid] };
      prepared = { document, operation: selectOperation(document, operationName) };
      this.#prepared.set(schema, operationName ?? '', query, prepared);
    }
    const operation = prepared.operation;
    if (operation instanceof GraphQLError) return { errors: [operation] };
    // The operation's type only: its name and text are the caller's document.
    return inSpan('graphql.execute', { 'graphql.operation.type': operation.operation }, (span) => {
      const result = this.#executeOperation(operation, prepared.document, params, request, context);
      if (result instanceof Promise) return result.then((settled) => failedWith(span, settled));
      return failedWith(span, result);
    });
  }

  #executeOperation(operation: OperationDefinitionNode, document: DocumentNode, params: GraphQLParams, request: GraphqlRequest, context: GraphqlRequestContext): ExecutionResult | Promise<ExecutionResult> {
    const refused = gateOperation(operation, request.method, context.principal);
    if (refused !== null) return { errors: [refused] };
    const operationName = typeof params.operationName === 'string' ? params.operationName : undefined;
    const args = { schema: context.graphSchema.schema, document, contextValue: context, variableValues: (params.variables ?? undefined) as Record<string, unknown> | undefined, operationName };
    // Reads run inside the engine's read of the graph (as Cypher's do): they start after a commit
    // that is waiting, and a commit arriving meanwhile applies once they end. Mutations commit first.
    if (operation.operation === 'query') return this.#engine.readNow(context.graph, () => executeOperation(args, operation));
    return executeOperation(args, operation);
  }
}

/** A span's error.type for a GraphQL failure: its code; graphql-js's own syntax and validation errors carry none. */
function graphqlErrorType(error: unknown): string {
  if (error instanceof GraphQLError && typeof error.extensions['code'] !== 'string') return 'TG_GRAPHQL_INVALID';
  return errorTypeOf(error);
}

/** Marks an execute span failed with the first error's code when the result carries errors (a partial result too). */
function failedWith(span: SpanHandle, result: ExecutionResult): ExecutionResult {
  const first = result.errors?.[0];
  if (first !== undefined) span.fail(graphqlErrorType(first));
  return result;
}
