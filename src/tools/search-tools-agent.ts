import { TOOL_DEFINITIONS } from '../../generated/tools/definitions.ts';
import { TOOL_INPUT_VALIDATORS } from '../../generated/validators/tools.ts';
import type { SearchToolsSearchOutput } from '../../generated/types/tools.ts';
import { catalogueViewOf, type Catalogue, type CatalogueVisibility } from '../manifest/index.ts';
import type { ToolAgent } from './tool-agent.ts';
import { defineAction } from './tool-agent.ts';

/** The name agents call it by; MCP has no standard tool search yet, so this is toolgraph's own. */
const SEARCH_TOOLS_NAME = 'search_tools';

const definition = TOOL_DEFINITIONS.search_tools;

/** What the search reads of the operation tools: each one's listing by name (its catalogue alias). */
export interface SearchableTools {
  tool(name: string): { readonly description: string; readonly inputSchema: object; readonly outputSchema: object } | undefined;
}

/**
 * `search_tools`: the operation tools ranked by a query, through the catalogue's own index (MiniSearch
 * BM25 over operation, alias, description and the schemas' property names), limited to the entries
 * that are tools now and that the caller may see (the catalogue routes' decision). Each hit is the
 * tool's full definition with the digest and address of its SchemaManifest. Called like an operation
 * tool: `{query, limit}`, no action.
 */
export function createSearchToolsAgent(catalogue: Catalogue, tools: SearchableTools, visibility?: CatalogueVisibility): ToolAgent {
  const action = defineAction('search', definition.actions.search, TOOL_INPUT_VALIDATORS.search_tools.search, {
    readOnly: true,
    async run(input, context): Promise<SearchToolsSearchOutput> {
      const view = catalogueViewOf(catalogue, visibility, context.request?.principal);
      const limit = input.limit ?? 5;
      // The catalogue holds more than tools (OpenAPI operations, a graph's root fields): only tools are ranked.
      const hits = catalogue.search(input.query, limit, (entry) => tools.tool(entry.manifest.alias) !== undefined && view.entryByDigest(entry.manifest.schema_sha256) !== undefined);
      return {
        tools: hits.flatMap((hit) => {
          const tool = tools.tool(hit.manifest.alias);
          if (tool === undefined) return [];
          return [{
            name: hit.manifest.alias,
            description: tool.description,
            inputSchema: tool.inputSchema as Record<string, unknown>,
            outputSchema: tool.outputSchema as Record<string, unknown>,
            score: hit.score,
            schema_sha256: hit.manifest.schema_sha256,
            manifest_uri: hit.manifest.manifest_uri,
          }];
        }),
      };
    },
  });
  return Object.freeze({
    name: SEARCH_TOOLS_NAME,
    description: definition.description,
    actions: [action],
    operation: Object.freeze({ inputSchema: definition.actions.search.input as { type: 'object' }, outputSchema: definition.actions.search.output as { type: 'object' }, meta: Object.freeze({}) }),
  });
}
