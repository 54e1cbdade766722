export { FEDERATION_LINK, sdlFromCatalogue, sdlFromModel } from './sdl-from-catalogue.ts';
export { MAX_NAMESPACE_LENGTH, NAMESPACE_PATTERN, checkNamespace, namespaceNames } from './namespace.ts';
export type { NamespaceNames } from './namespace.ts';
export { PAGINATION_ARGS, pascalCase, schemaModelFromCatalogue, schemaModelSteps } from './schema-model.ts';
export type { EdgeField, LabelModel, PropertyField, SchemaModel, UnionModel } from './schema-model.ts';
export { readNamespace, replaceNamespace } from './namespace-admin.ts';
export type { NamespaceRecord, NamespaceStore } from './namespace-admin.ts';
