import { parse, type OperationTypeNode } from 'graphql';
import { TOOL_DEFINITIONS } from '../../../generated/tools/definitions.ts';
import { TOOL_INPUT_VALIDATORS } from '../../../generated/validators/tools.ts';
import type { GraphCypherOutput, GraphExplainInput, GraphExplainOutput, GraphQueryOutput, GraphSchemaOutput } from '../../../generated/types/tools.ts';
import { ERROR_CODES, ToolgraphError, type ErrorCode } from '../../errors/index.ts';
import { readScopes, WRITE_SCOPES } from '../../principal/index.ts';
import { defineAction, defineAgent, type ActionContext, type ToolAgent } from '../tool-agent.ts';
import type { GraphServiceClient } from './graph-service-client.ts';

/**
 * How a GraphQL query would run, from the library function a later step adds. The `explain` action
 * is listed only when one is given.
 */
export type GraphExplainer = (input: GraphExplainInput, context: ActionContext) => Promise<GraphExplainOutput>;

export interface GraphAgentOptions {
  /** The tool's name: `graph`, or another graph agent's. */
  readonly name: string;
  readonly client: GraphServiceClient;
  readonly explain?: GraphExplainer;
  /**
   * With delegation, ask for each action's own scopes (a read scope to query, a write scope to
   * mutate) instead of the agent's (DELEGATED_SCOPES, whose default `api` the graph service refuses).
   * False when the agent's configuration names its scopes.
   */
  readonly scopesPerAction?: boolean;
  /** A call may answer with the caller's consent to ask for (three-legged, per-caller consent). */
  readonly asksConsent?: boolean;
}

/**
 * The scopes a delegated token needs for an action: from each group of accepted scopes, the first the
 * caller holds (least privilege first: kg:read before kg:write), or the group's first when the caller
 * holds none of a required group. An optional group (Cypher's writes) is asked for only when held, so
 * a delegated token never carries more than the caller's own.
 */
export function delegatedScopesFor(groups: readonly { readonly scopes: readonly string[]; readonly optional?: boolean }[], held: readonly string[] | undefined): string {
  const picked: string[] = [];
  for (const group of groups) {
    const scope = group.scopes.find((s) => held?.includes(s)) ?? (group.optional ? undefined : group.scopes[0]);
    if (scope !== undefined && !picked.includes(scope)) picked.push(scope);
  }
  return picked.join(' ');
}

const QUERY_SCOPES = [{ scopes: readScopes('graphql') }];
const MUTATE_SCOPES = [{ scopes: WRITE_SCOPES }];
const CYPHER_SCOPES = [{ scopes: readScopes('cypher') }, { scopes: WRITE_SCOPES, optional: true }];

/** The federation query that answers the subgraph SDL; it stays reachable with introspection off. */
const SERVICE_SDL_QUERY = '{ _service { sdl } }';

const definition = TOOL_DEFINITIONS.graph;
const validators = TOOL_INPUT_VALIDATORS.graph;

/**
 * The operation kinds a document holds, or undefined when it does not parse (the graph service then
 * answers the syntax error itself, with its own code and position).
 */
function operationKinds(query: string): Set<OperationTypeNode> | undefined {
  try {
    const document = parse(query, { noLocation: true });
    return new Set(document.definitions.flatMap((d) => (d.kind === 'OperationDefinition' ? [d.operation] : [])));
  } catch {
    return undefined;
  }
}

/** `query` runs no mutation and `mutate` nothing but mutations, so a client's intent (and MCP's readOnlyHint) holds. */
function requireOnly(kind: 'query' | 'mutation', query: string, tool: string): void {
  const kinds = operationKinds(query);
  if (kinds === undefined) return;
  const other = [...kinds].filter((k) => k !== kind);
  if (other.length === 0) return;
  const action = kind === 'query' ? 'query' : 'mutate';
  const instead = other.includes('mutation' as OperationTypeNode) ? 'mutate' : other.includes('query' as OperationTypeNode) ? 'query' : undefined;
  throw new ToolgraphError('TG_TOOL_ARGUMENTS_INVALID', `${tool}.${action} runs ${kind} operations only; the document has a ${other.join(' and a ')} operation${instead ? ` (use the ${instead} action)` : ' (subscriptions are served by the SSE carrier)'}.`, {
    details: { tool, action, violations: [{ pointer: '/query', expected: `${kind} operations only`, got: other.join(', ') }] },
  });
}

/**
 * The GraphQL result as the tool's output. A result without data (the whole operation failed: a
 * parse or validation error, a version conflict) is a failed call, whose text is the GraphQL errors'
 * messages and whose code is the first error's; a partial result (data beside errors) is returned
 * whole, as GraphQL defines it.
 */
export function graphResultOf(value: unknown): GraphQueryOutput {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolgraphError('TG_DOWNSTREAM_FAILED', 'The graph service answered a GraphQl method with something other than a GraphQL result object.');
  }
  const result = value as GraphQueryOutput;
  const errors = (result.errors ?? []) as { message?: unknown; extensions?: { code?: unknown } }[];
  if ((result.data === null || result.data === undefined) && errors.length > 0) {
    const code = errors[0]?.extensions?.code;
    const message = errors.map((e) => (typeof e.message === 'string' ? e.message : 'GraphQL error')).join('; ');
    throw new ToolgraphError(typeof code === 'string' && Object.hasOwn(ERROR_CODES, code) ? code as ErrorCode : 'TG_GRAPHQL_INVALID', message, { details: { errors: errors.length } });
  }
  return result;
}

/**
 * The `graph` tool: every action goes to the graph service's native dispatch over HTTP, with the
 * credentials the port gives (full delegation). query and mutate use the GraphQl method, cypher the
 * Cypher method, schema the federation `_service { sdl }` query.
 */
export function createGraphAgent(options: GraphAgentOptions): ToolAgent {
  const { client, name } = options;
  const call = (action: string, groups: typeof QUERY_SCOPES, context: ActionContext) => ({
    operation: `${name}.${action}`,
    ...(options.scopesPerAction ? { scopes: delegatedScopesFor(groups, context.request?.principal.scopes) } : {}),
  });
  const actions = [
    defineAction('query', definition.actions.query, validators.query, {
      readOnly: true,
      scopes: readScopes('graphql'),
      async run(input, context) {
        requireOnly('query', input.query, name);
        return graphResultOf(await client.dispatch(input.graph, { GraphQl: { query: input.query, ...(input.variables ? { variables: input.variables } : {}) } }, context, call('query', QUERY_SCOPES, context)));
      },
    }),
    defineAction('mutate', definition.actions.mutate, validators.mutate, {
      readOnly: false,
      scopes: WRITE_SCOPES,
      async run(input, context) {
        requireOnly('mutation', input.query, name);
        return graphResultOf(await client.dispatch(input.graph, { GraphQl: { query: input.query, ...(input.variables ? { variables: input.variables } : {}) } }, context, call('mutate', MUTATE_SCOPES, context)));
      },
    }),
    defineAction('cypher', definition.actions.cypher, validators.cypher, {
      // A Cypher statement may write: any read or write scope lets it through here, and the graph
      // service, which parses the statement, checks the write scopes exactly.
      readOnly: false,
      scopes: [...new Set([...readScopes('cypher'), ...WRITE_SCOPES])],
      async run(input, context) {
        const result = await client.dispatch(input.graph, { Cypher: { query: input.query, ...(input.params ? { params: input.params } : {}) } }, context, call('cypher', CYPHER_SCOPES, context));
        return result as GraphCypherOutput;
      },
    }),
    defineAction('schema', definition.actions.schema, validators.schema, {
      readOnly: true,
      scopes: readScopes('graphql'),
      async run(input, context): Promise<GraphSchemaOutput> {
        const result = graphResultOf(await client.dispatch(input.graph, { GraphQl: { query: SERVICE_SDL_QUERY } }, context, call('schema', QUERY_SCOPES, context)));
        const sdl = (result.data as { _service?: { sdl?: unknown } } | null | undefined)?._service?.sdl;
        if (typeof sdl !== 'string') {
          const first = (result.errors?.[0] as { message?: unknown } | undefined)?.message;
          throw new ToolgraphError('TG_DOWNSTREAM_FAILED', `The graph service did not answer the subgraph SDL${typeof first === 'string' ? `: ${first}` : ''}.`);
        }
        return { graph: input.graph, sdl };
      },
    }),
    ...(options.explain === undefined ? [] : [defineAction('explain', definition.actions.explain, validators.explain, {
      readOnly: true,
      scopes: readScopes('graphql'),
      run: options.explain,
    })]),
  ];
  return defineAgent(name, definition, actions, undefined, { asksConsent: options.asksConsent ?? false });
}
