export type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
export { assertSchemaManifest, isSchemaManifest } from './validate-manifest.ts';

// Canonical schemas, digests, fragments
export { FRAGMENT_BYTES, MAX_SCHEMA_BYTES, ALIAS_PATTERN, isDigest } from './limits.ts';
export { sha256Hex } from '../digest/index.ts';
export { canonicalJson, canonicalJsonOfParsed } from './canonical-json.ts';
export type { JsonValue } from './canonical-json.ts';
export { canonicalSchema, partDigest } from './canonical-schema.ts';
export { fragmentCount, fragmentLength, fragmentOf } from './fragments.ts';
export { assignAliases, fitAlias } from './alias.ts';

// Sources and the catalogue
export type { JsonSchema, SchemaSource } from './schema-source.ts';
export { openApiSource, graphqlSource, toolActionSource, GraphqlSchemaEntries, persistedDocumentSource } from './sources/index.ts';
export type { PersistedOperation } from './sources/index.ts';
export { PieceDocument } from './schema-document.ts';
export type { ToolAction } from './sources/index.ts';
export { buildCatalogueEntries, buildCatalogueEntriesStrict } from './catalogue-entry.ts';
export type { CatalogueEntry, BuiltEntries } from './catalogue-entry.ts';
export { Catalogue } from './catalogue.ts';
export { CatalogueSearch } from './catalogue-search.ts';
export { staticCatalogueText, loadStaticCatalogue, STATIC_CATALOGUE_FILE } from './static-catalogue.ts';
export type { StaticSource } from './static-catalogue.ts';
export { createStaticCatalogue } from './create-static-catalogue.ts';
export { watchGraphCatalogue, watchGraphCatalogues } from './watch-graph-catalogue.ts';
export type {
  CatalogueChangeEvent, GraphCatalogueWatch,
  GraphEntriesSteps,
} from './watch-graph-catalogue.ts';

// HTTP
export { createCatalogueService, IMMUTABLE_CACHE_CONTROL } from './catalogue-service.ts';
export { CatalogueView, catalogueViewOf } from './catalogue-view.ts';
export type { CatalogueVisibility } from './catalogue-view.ts';

// Verified fetch
export { createSchemaClient, DEFAULT_CONCURRENCY, assertFetchable, writeFileAtomic } from './client/index.ts';
