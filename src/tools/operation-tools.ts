import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { CatalogueEntry, PersistedOperation } from '../manifest/index.ts';
import { readScopes, WRITE_SCOPES } from '../principal/index.ts';
import { delegatedScopesFor, graphResultOf } from './graph/graph-agent.ts';
import type { GraphServiceClient } from './graph/graph-service-client.ts';
import type { ActionContext, AnyToolAction, OperationListing, ToolAgent } from './tool-agent.ts';

/** Which catalogue operations `/mcp` lists as tools of their own (TOOLGRAPH_MCP_OPERATION_TOOLS). */
export type OperationToolsMode = 'persisted' | 'catalogue' | 'off';

/** `_meta` keys of an operation tool: its SchemaManifest's digest and address, to verify the tool against the catalogue. */
export const SCHEMA_DIGEST_META_KEY = 'io.toolgraph/schema_sha256';
export const MANIFEST_URI_META_KEY = 'io.toolgraph/manifest_uri';

/** The two parts of a canonical schema document, as a tool lists them. */
function schemasOf(entry: CatalogueEntry): { input: OperationListing['inputSchema']; output: OperationListing['outputSchema'] } {
  const parsed = JSON.parse(entry.document.toString('utf8')) as { input: OperationListing['inputSchema']; output: OperationListing['outputSchema'] };
  return { input: parsed.input, output: parsed.output };
}

/** One ajv for every operation tool; a schema is compiled on the first call of its tool, not when 10,000 are listed. */
let ajv: Ajv2020 | undefined;

/** A validator of the manifest's input schema, compiled when first asked (the schema is the manifest's, byte for byte). */
function lazyValidator(schema: object): AnyToolAction['validate'] {
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    ajv ??= new Ajv2020({ strict: false, allErrors: true, verbose: true, validateFormats: false });
    compiled ??= ajv.compile(schema);
    const ok = compiled(data);
    validate.errors = (compiled.errors ?? undefined) as ErrorObject[] | undefined;
    return ok;
  };
  validate.errors = undefined as ErrorObject[] | undefined;
  return validate;
}

function listingOf(entry: CatalogueEntry, manifestUri: (entry: CatalogueEntry) => string): OperationListing {
  const { input, output } = schemasOf(entry);
  return Object.freeze({
    inputSchema: input,
    outputSchema: output,
    meta: Object.freeze({ [SCHEMA_DIGEST_META_KEY]: entry.manifest.schema_sha256, [MANIFEST_URI_META_KEY]: manifestUri(entry) }),
  });
}

export interface PersistedOperationToolsOptions {
  /** The catalogue entries of the persisted-documents source, in catalogue order. */
  readonly entries: readonly CatalogueEntry[];
  /** The trusted documents by operation name. */
  readonly operations: ReadonlyMap<string, PersistedOperation>;
  readonly manifestUri: (entry: CatalogueEntry) => string;
  /** The graph service the documents run on (the `graph` agent's), and the graph they were written for. */
  readonly client: GraphServiceClient;
  readonly graph: string;
  /** Mutations are listed only when this is true (TOOLGRAPH_MCP_OPERATION_MUTATIONS). */
  readonly mutations: boolean;
  /** With delegation and no configured scopes, each call's delegated token asks for the operation's own scope. */
  readonly scopesPerAction: boolean;
  readonly asksConsent: boolean;
}

/**
 * One tool per trusted GraphQL document: named by its manifest's alias, listed with its manifest's
 * canonical input and output schemas and digest, its arguments checked against that input schema
 * before anything runs, run as the exact trusted text through the graph service's dispatch with the
 * caller's credentials (so ACL, row-level security, budgets and persisted-only mode apply as on
 * every surface). A query needs a GraphQL read scope, a mutation a write scope.
 */
export function persistedOperationTools(options: PersistedOperationToolsOptions): ToolAgent[] {
  const tools: ToolAgent[] = [];
  for (const entry of options.entries) {
    const persisted = options.operations.get(entry.manifest.operation);
    if (persisted === undefined) continue;
    if (persisted.kind === 'mutation' && !options.mutations) continue;
    const scopes = persisted.kind === 'query' ? readScopes('graphql') : WRITE_SCOPES;
    const listing = listingOf(entry, options.manifestUri);
    const action: AnyToolAction = Object.freeze({
      name: 'run',
      description: entry.description,
      inputSchema: listing.inputSchema,
      outputSchema: listing.outputSchema,
      validate: lazyValidator(listing.inputSchema),
      readOnly: persisted.kind === 'query',
      scopes,
      async run(input: never, context: ActionContext) {
        const call = {
          operation: `${entry.manifest.alias}`,
          ...(options.scopesPerAction ? { scopes: delegatedScopesFor([{ scopes }], context.request?.principal.scopes) } : {}),
        };
        const result = graphResultOf(await options.client.dispatch(options.graph, { GraphQl: { query: persisted.text, variables: input as Record<string, unknown> } }, context, call));
        return result.errors === undefined ? { data: result.data ?? null } : { data: result.data ?? null, errors: result.errors };
      },
    });
    tools.push(Object.freeze({ name: entry.manifest.alias, description: entry.description, actions: [action], operation: listing, ...(options.asksConsent ? { asksConsent: true } : {}) }));
  }
  return tools;
}

/**
 * Every action of the built-in tools as a tool of its own (mode `catalogue`): named by the alias of
 * its entry in the catalogue's `tools` source, listed with that manifest's schemas and digest, run
 * by the action itself (same validator, scopes and code as a call through its agent).
 */
export function actionOperationTools(entries: readonly CatalogueEntry[], agents: readonly ToolAgent[], manifestUri: (entry: CatalogueEntry) => string): ToolAgent[] {
  const actions = new Map<string, { agent: ToolAgent; action: AnyToolAction }>();
  for (const agent of agents) for (const action of agent.actions) actions.set(`${agent.name}_${action.name}`, { agent, action });
  const tools: ToolAgent[] = [];
  for (const entry of entries) {
    const found = actions.get(entry.manifest.operation);
    if (found === undefined) continue;
    tools.push(Object.freeze({
      name: entry.manifest.alias,
      description: entry.description,
      actions: [found.action],
      operation: listingOf(entry, manifestUri),
      ...(found.agent.asksConsent ? { asksConsent: true } : {}),
    }));
  }
  return tools;
}
