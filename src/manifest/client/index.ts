export { createSchemaClient, DEFAULT_CONCURRENCY } from './schema-client.ts';
export { fetchFragments } from './fetch-fragments.ts';
export { nodeHttpGet } from './http-get.ts';
export { assertFetchable, verifySchemaDocument } from './verify-schema.ts';
export { writeFileAtomic } from './write-atomic.ts';
export { scanCanonicalJson, CanonicalScanner, NotCanonicalError } from './canonical-scan.ts';
