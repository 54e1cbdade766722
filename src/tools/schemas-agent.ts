import { TOOL_DEFINITIONS } from '../../generated/tools/definitions.ts';
import { TOOL_INPUT_VALIDATORS } from '../../generated/validators/tools.ts';
import type { SchemasFragmentOutput, SchemasGetOutput, SchemasSearchOutput } from '../../generated/types/tools.ts';
import { ToolgraphError, describeValue } from '../errors/index.ts';
import { catalogueViewOf, isDigest, type Catalogue, type CatalogueEntry, type CatalogueView, type CatalogueVisibility } from '../manifest/index.ts';
import { defineAction, defineAgent, type ActionContext, type ToolAgent } from './tool-agent.ts';

/** Largest canonical schema `get` returns inline; bigger ones are read fragment by fragment. */
const INLINE_SCHEMA_BYTES = 1024 * 1024;

const definition = TOOL_DEFINITIONS.schemas;
const validators = TOOL_INPUT_VALIDATORS.schemas;

function entryNamed(catalogue: CatalogueView, name: string): CatalogueEntry {
  if (isDigest(name)) {
    const entry = catalogue.entryByDigest(name);
    if (entry === undefined) throw new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No manifest has schema_sha256 ${name}.`);
    return entry;
  }
  const found = catalogue.lookup(name);
  if (found.length === 0) throw new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No manifest has the alias or operation ${describeValue(name)}; search the catalogue for the alias.`);
  if (found.length > 1) {
    const aliases = found.map((e) => e.manifest.alias);
    throw new ToolgraphError('TG_BAD_REQUEST', `The operation ${describeValue(name)} is in ${found.length} sources; name one by alias: ${aliases.join(', ')}.`, { details: { aliases } });
  }
  return found[0] as CatalogueEntry;
}

/**
 * The `schemas` tool over this process's catalogue: the same manifests, digests and fragments its
 * HTTP routes serve, to the same callers. Each call reads the catalogue through the caller's view,
 * the decision GET /schemas/* asks (`visibility`; absent: every entry is public), so an entry the
 * caller may not see is absent here exactly as it is there.
 */
export function createSchemasAgent(catalogue: Catalogue, visibility?: CatalogueVisibility): ToolAgent {
  const viewOf = (context: ActionContext): CatalogueView => catalogueViewOf(catalogue, visibility, context.request?.principal);
  return defineAgent('schemas', definition, [
    defineAction('search', definition.actions.search, validators.search, {
      readOnly: true,
      async run(input, context): Promise<SchemasSearchOutput> {
        const results = viewOf(context).search(input.query, input.limit ?? 10);
        return { results: results.map((r) => ({ manifest: { ...r.manifest }, score: r.score, description: r.description })) };
      },
    }),
    defineAction('get', definition.actions.get, validators.get, {
      readOnly: true,
      async run(input, context): Promise<SchemasGetOutput> {
        const view = viewOf(context);
        const entry = entryNamed(view, input.name);
        const manifest = { ...view.manifestOf(entry) };
        if (entry.document.length > INLINE_SCHEMA_BYTES) return { manifest };
        return { manifest, schema: JSON.parse(entry.document.toString('utf8')) as Record<string, unknown> };
      },
    }),
    defineAction('fragment', definition.actions.fragment, validators.fragment, {
      readOnly: true,
      async run(input, context): Promise<SchemasFragmentOutput> {
        const view = viewOf(context);
        const entry = view.entryByDigest(input.schema_sha256);
        if (entry === undefined) throw new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No manifest has schema_sha256 ${input.schema_sha256}.`);
        const bytes = view.fragment(input.schema_sha256, input.index);
        const count = entry.manifest.fragment_count;
        if (bytes === undefined) {
          throw new ToolgraphError('TG_FRAGMENT_NOT_FOUND', `Fragment ${input.index} is past the end: schema ${input.schema_sha256} has ${count} fragment${count === 1 ? '' : 's'} (0 to ${count - 1}).`);
        }
        return { schema_sha256: input.schema_sha256, index: input.index, fragment_count: count, bytes: bytes.length, data_base64: Buffer.from(bytes).toString('base64') };
      },
    }),
  ]);
}
