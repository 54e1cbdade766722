export { openApiSource } from './openapi-source.ts';
export { graphqlSource } from './graphql-source.ts';
export { toolActionSource } from './tool-action-source.ts';
export type { ToolAction } from './tool-action-source.ts';
export { GraphqlSchemaEntries } from './graphql-schema-entries.ts';
export { persistedDocumentSource } from './persisted-document-source.ts';
export type { PersistedOperation } from './persisted-document-source.ts';
