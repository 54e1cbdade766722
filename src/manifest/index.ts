export type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
export { assertSchemaManifest, describeManifestErrors, isSchemaManifest } from './validate-manifest.ts';
export type { ManifestViolation } from './validate-manifest.ts';
