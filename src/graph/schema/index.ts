export { sdlFromCatalogue, sdlFromModel } from './sdl-from-catalogue.ts';
export { namespaceNames } from './namespace.ts';
export type { NamespaceNames } from './namespace.ts';
export { PAGINATION_ARGS, pascalCase, schemaModelFromCatalogue, schemaModelSteps } from './schema-model.ts';
export type { EdgeField, LabelModel, PropertyField, SchemaModel, UnionModel } from './schema-model.ts';
export { readNamespace, replaceNamespace } from './namespace-admin.ts';
export type { NamespaceStore } from './namespace-admin.ts';
