export { FEDERATION_LINK, sdlFromCatalogue, sdlFromModel } from './sdl-from-catalogue.ts';
export { PAGINATION_ARGS, pascalCase, schemaModelFromCatalogue, schemaModelSteps } from './schema-model.ts';
export type { EdgeField, LabelModel, PropertyField, SchemaModel, UnionModel } from './schema-model.ts';
