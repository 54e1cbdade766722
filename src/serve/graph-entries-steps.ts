import type { GraphCatalogue } from '../graph/engine/index.ts';
import { GraphSchemaBuilder } from '../graph/graphql/index.ts';
import { GraphqlSchemaEntries, type GraphEntriesSteps } from '../manifest/index.ts';

/**
 * How the catalogue rebuilds a graph's manifests: its GraphQL schema (kept per label by a builder of
 * its own), then the manifests of its operations (kept per type and operation), both in steps, so a
 * schema change costs what it changed and never holds the event loop for long.
 */
export function graphEntriesSteps(_graph: string, sourceName: string): GraphEntriesSteps<GraphCatalogue> {
  const schemas = new GraphSchemaBuilder();
  const entries = new GraphqlSchemaEntries(sourceName);
  return function* (catalogue: GraphCatalogue) {
    const graphSchema = yield* schemas.steps(catalogue);
    yield;
    const sdl = graphSchema.sdl;
    yield;
    return yield* entries.steps(graphSchema.schema, sdl);
  };
}
