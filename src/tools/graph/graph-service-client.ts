import { ERROR_CODES, ToolgraphError, type ErrorCode } from '../../errors/index.ts';
import { describeCredential, type AgentCredentials } from '../../auth/index.ts';
import type { ActionContext } from '../tool-agent.ts';
import type { DownstreamHttp } from '../downstream-http.ts';

/** The native request's method, as POST /dispatch takes it. */
type GraphMethod =
  | { readonly Cypher: { readonly query: string; readonly params?: Readonly<Record<string, unknown>> } }
  | { readonly GraphQl: { readonly query: string; readonly variables?: Readonly<Record<string, unknown>> } };

/** What a call asks the credentials model for: the operation (`graph.cypher`) and, with delegation, the scopes it needs. */
interface GraphCall {
  readonly operation: string;
  /** Scopes of the delegated token for this call (space-separated); undefined: the agent's. */
  readonly scopes?: string | undefined;
}

/** A graph service reached over HTTP: its native dispatch, called with the agent's downstream credential. */
export interface GraphServiceClient {
  dispatch(graph: string, method: GraphMethod, context: ActionContext, call: GraphCall): Promise<unknown>;
}

export interface GraphServiceClientOptions {
  /** The graph service's base URL (this process's own origin when the agent has no url). */
  readonly baseUrl: string;
  /** The agent's credentials (src/auth's one model): resolved for the caller on every call. */
  readonly credentials: AgentCredentials;
  readonly http: DownstreamHttp;
}

function isCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** An error the graph service answered (ErrorBody or a NativeResponse's error), raised again with its own code and text. */
function raised(error: unknown, status: number, api: string): ToolgraphError {
  const e = error as { code?: unknown; message?: unknown; details?: unknown } | null;
  if (e !== null && typeof e === 'object' && isCode(e.code) && typeof e.message === 'string') {
    const details = e.details !== null && typeof e.details === 'object' && !Array.isArray(e.details) ? e.details as Record<string, unknown> : undefined;
    return new ToolgraphError(e.code, e.message, details === undefined ? {} : { details });
  }
  return new ToolgraphError('TG_DOWNSTREAM_FAILED', `${api} answered HTTP ${status} without an error body this server understands.`, { details: { status } });
}

/**
 * POST {baseUrl}/dispatch with a NativeRequest. A NativeResponse's `result` is returned; its `error`
 * (and an HTTP error's ErrorBody: 401, 403 insufficient scope, 404) is thrown with the graph
 * service's own code and message, so the tool error says exactly what the graph service said.
 */
export function createGraphServiceClient(options: GraphServiceClientOptions): GraphServiceClient {
  const url = new URL('dispatch', options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const api = `the graph service at ${url.origin}`;
  let nextId = 0;

  return {
    async dispatch(graph, method, context, call) {
      const credential = await options.credentials.resolve({ context: context.request, operation: call.operation, scopes: call.scopes });
      context.logger.debug({ agent: options.credentials.name, credential: describeCredential(credential) }, 'downstream call');
      nextId = nextId >= Number.MAX_SAFE_INTEGER ? 1 : nextId + 1;
      const body = JSON.stringify({ id: nextId, graph, method });
      const response = await options.http.send({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...credential.headers },
        body,
        signal: context.signal,
      });
      let parsed: unknown;
      try {
        parsed = JSON.parse(response.body.toString('utf8'));
      } catch (error) {
        throw new ToolgraphError('TG_DOWNSTREAM_FAILED', `${api} answered HTTP ${response.status} with a body that is not JSON.`, { cause: error, details: { status: response.status } });
      }
      const answer = parsed as { result?: unknown; error?: unknown } | null;
      if (response.status === 200 && answer !== null && typeof answer === 'object') {
        if ('error' in answer) throw raised(answer.error, response.status, api);
        if ('result' in answer) return answer.result;
      }
      throw raised(answer?.error, response.status, api);
    },
  };
}
