import type { ResolvedValues } from '../config/index.ts';
import type { SchemaCaps } from '../graph/engine/index.ts';

export type SchemaCapSettings = Pick<ResolvedValues, 'graphMaxLabels' | 'graphMaxEdgeTypes' | 'graphMaxPropertiesPerLabel' | 'graphMaxSchemaFields' | 'graphMaxNameLength'>;

/** How far each graph's schema may grow, from the graph_max_* settings. */
export function schemaCapsOf(values: SchemaCapSettings): SchemaCaps {
  return Object.freeze({
    maxLabels: values.graphMaxLabels,
    maxEdgeTypes: values.graphMaxEdgeTypes,
    maxPropertiesPerLabel: values.graphMaxPropertiesPerLabel,
    maxSchemaFields: values.graphMaxSchemaFields,
    maxNameLength: values.graphMaxNameLength,
  });
}
