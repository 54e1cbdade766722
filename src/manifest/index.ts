export type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
export { assertSchemaManifest, describeManifestErrors, isSchemaManifest } from './validate-manifest.ts';
export type { ManifestViolation } from './validate-manifest.ts';

// Canonical schemas, digests, fragments
export {
  FRAGMENT_BYTES, MAX_SCHEMA_BYTES, MAX_FRAGMENT_COUNT, OPERATION_NAME_PATTERN, OPERATION_NAME_MAX_LENGTH,
  ALIAS_PATTERN, ALIAS_MAX_LENGTH, DIGEST_PATTERN, isDigest,
} from './limits.ts';
export { sha256Hex } from '../digest/index.ts';
export { canonicalJson, canonicalJsonOfParsed } from './canonical-json.ts';
export type { JsonValue } from './canonical-json.ts';
export { canonicalSchema, partDigest } from './canonical-schema.ts';
export type { CanonicalSchema } from './canonical-schema.ts';
export { fragmentCount, fragmentLength, fragmentOf } from './fragments.ts';
export { assignAliases, baseAlias, fitAlias, SOURCE_NAME_PATTERN } from './alias.ts';
export { operationNameProblem, operationNameError } from './operation-name.ts';
export type { OperationNameProblem } from './operation-name.ts';
export { manifestUri, fragmentUriTemplate, normalizeBaseUrl } from './public-urls.ts';

// Sources and the catalogue
export type { JsonSchema, OperationSchema, SchemaSource } from './schema-source.ts';
export { openApiSource, graphqlSource, toolActionSource, FEDERATION_ROOT_FIELDS, GraphqlSchemaEntries } from './sources/index.ts';
export { PieceDocument } from './schema-document.ts';
export type { SchemaDocument } from './schema-document.ts';
export type { ToolAction } from './sources/index.ts';
export { buildCatalogueEntries, buildCatalogueEntriesStrict, throwOnProblems } from './catalogue-entry.ts';
export type { CatalogueEntry, ManifestCore, OperationProblem, BuiltEntries, CanonicalOperation } from './catalogue-entry.ts';
export { Catalogue, createCatalogue } from './catalogue.ts';
export type { CatalogueOptions, CatalogueSearchResult } from './catalogue.ts';
export { CatalogueSearch, tokenizeForSearch } from './catalogue-search.ts';
export type { SearchHit, SearchUpdate } from './catalogue-search.ts';
export { staticCatalogueText, loadStaticCatalogue, defaultStaticCatalogueFile, STATIC_CATALOGUE_COMMENT, STATIC_CATALOGUE_FILE } from './static-catalogue.ts';
export type { StaticSource, StaticSourceRecord } from './static-catalogue.ts';
export { createStaticCatalogue } from './create-static-catalogue.ts';
export type { StaticCatalogueOptions } from './create-static-catalogue.ts';
export { watchGraphCatalogue, watchGraphCatalogues, DEFAULT_COALESCE_MS } from './watch-graph-catalogue.ts';
export type {
  CatalogueChangeEvent, GraphCatalogueFeed, GraphsCatalogueFeed, GraphCatalogueWatch, WatchGraphCatalogueOptions, WatchGraphCataloguesOptions,
  GraphEntriesSteps,
} from './watch-graph-catalogue.ts';

// HTTP
export { createCatalogueService, IMMUTABLE_CACHE_CONTROL } from './catalogue-service.ts';
export type { CatalogueEntryFilter, CatalogueServiceOptions } from './catalogue-service.ts';

// Verified fetch
export {
  SchemaClient, createSchemaClient, DEFAULT_CATALOGUE_URL, DEFAULT_CONCURRENCY, DEFAULT_RETRIES, SchemaCache,
  fetchFragments, assertFetchable, verifySchemaDocument, writeFileAtomic, nodeHttpGet, fetchHttpGet,
} from './client/index.ts';
export type { SchemaClientOptions, SearchHitView, GetOptions, FetchedSchema, FetchLike, HttpGet, VerifiedSchema, BackoffOptions } from './client/index.ts';
