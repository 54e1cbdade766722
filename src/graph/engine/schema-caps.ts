import { ToolgraphError } from '../../errors/index.ts';
import type { GraphStore } from './graph-store.ts';
import type { Mutation } from './types.ts';

/**
 * How far one graph's catalogue (its schema: labels, property names, edge types) may grow. Every
 * label, property and edge field becomes part of the graph's GraphQL schema and its catalogue
 * manifests, so an unbounded catalogue is unbounded memory and rebuild time. A write that would cross
 * a cap is refused whole before it is logged; a stored graph already over a cap (a cap lowered, or
 * data from before the caps) still loads and serves, and only its growth is refused.
 * The defaults are the settings' defaults (TOOLGRAPH_GRAPH_MAX_* in src/config/settings.ts).
 */
export interface SchemaCaps {
  /** Labels per graph. */
  readonly maxLabels: number;
  /** Edge types per graph. */
  readonly maxEdgeTypes: number;
  /** Property names per label. */
  readonly maxPropertiesPerLabel: number;
  /**
   * The size of the schema: every property of every label, plus every edge-type label pair (an edge
   * type seen from one label to another: it gives both labels an edge field). What a schema rebuild
   * costs grows with it.
   */
  readonly maxSchemaFields: number;
  /** Characters of a new label, property name or edge type. */
  readonly maxNameLength: number;
}

/**
 * Generous for hand-made and generated schemas (a thousand labels, or a table of a thousand
 * columns), and small enough that the whole GraphQL schema of a graph at the caps rebuilds within the
 * event-loop budget (scripts/bench/schema.ts measures it).
 */
export const DEFAULT_SCHEMA_CAPS: SchemaCaps = Object.freeze({
  maxLabels: 1000,
  maxEdgeTypes: 1000,
  maxPropertiesPerLabel: 1000,
  maxSchemaFields: 10_000,
  maxNameLength: 128,
});

/** The setting that raises each cap, named in every refusal. */
const SCHEMA_CAP_SETTINGS = Object.freeze({
  maxLabels: 'TOOLGRAPH_GRAPH_MAX_LABELS',
  maxEdgeTypes: 'TOOLGRAPH_GRAPH_MAX_EDGE_TYPES',
  maxPropertiesPerLabel: 'TOOLGRAPH_GRAPH_MAX_PROPERTIES_PER_LABEL',
  maxSchemaFields: 'TOOLGRAPH_GRAPH_MAX_SCHEMA_FIELDS',
  maxNameLength: 'TOOLGRAPH_GRAPH_MAX_NAME_LENGTH',
} satisfies Record<keyof SchemaCaps, string>);

type Cap = keyof SchemaCaps;

interface Crossing {
  readonly cap: Cap;
  readonly index: number;
  /** What is over the cap, in words: `graph "g" would have 1001 labels`. */
  readonly what: (found: number) => string;
  found: number;
}

/**
 * Refuses a planned batch that would grow the graph's catalogue past a cap (TG_SCHEMA_CAP_EXCEEDED,
 * naming the cap, its value and its setting; nothing is written). Costs in proportion to the batch:
 * it counts only what the batch adds, against counts the catalogue keeps. Replays and followed
 * records never come here: what is stored always loads.
 */
export function checkSchemaGrowth(store: GraphStore, mutations: readonly Mutation[], caps: SchemaCaps): void {
  const types = store.types;
  /** Labels of nodes created by this batch, by id (later mutations name them). */
  const created = new Map<string, string>();
  const labelOf = (id: string): string | undefined => created.get(id) ?? store.nodes.get(id)?.label;
  const newLabels = new Set<string>();
  const newEdgeTypes = new Set<string>();
  /** label → property names new to it. */
  const newProps = new Map<string, Set<string>>();
  /** `type \0 src \0 tgt` of edge-type label pairs new to the schema. */
  const newPairs = new Set<string>();
  let newPropCount = 0;
  let first: Crossing | undefined;
  const crossings = new Map<string, Crossing>();

  const cross = (key: string, cap: Cap, index: number, found: number, what: (found: number) => string): void => {
    const known = crossings.get(key);
    if (known !== undefined) {
      known.found = found;
      return;
    }
    const crossing: Crossing = { cap, index, what, found };
    crossings.set(key, crossing);
    first ??= crossing;
  };
  const fields = (): number => types.schemaFieldCount + newPropCount + newPairs.size;
  const checkFields = (index: number): void => {
    const found = fields();
    if (found > caps.maxSchemaFields) cross('fields', 'maxSchemaFields', index, found, (n) => `graph "${store.name}" would have ${n} schema fields (properties of all labels plus edge-type label pairs)`);
  };
  const checkName = (index: number, kind: string, name: string): void => {
    if (name.length > caps.maxNameLength) {
      cross(`name\u0000${kind}\u0000${name}`, 'maxNameLength', index, name.length, (n) => `the new ${kind} ${name.length > 40 ? `"${name.slice(0, 40)}…"` : `"${name}"`} is ${n} characters long`);
    }
  };
  const label = (index: number, name: string): void => {
    if (types.hasLabel(name) || newLabels.has(name)) return;
    newLabels.add(name);
    checkName(index, 'label', name);
    const found = types.labelCount + newLabels.size;
    if (found > caps.maxLabels) cross('labels', 'maxLabels', index, found, (n) => `graph "${store.name}" would have ${n} labels`);
  };
  const props = (index: number, on: string, names: Iterable<string>): void => {
    let added = newProps.get(on);
    let grew = false;
    for (const name of names) {
      if (types.typeOf(on, name) !== undefined || added?.has(name)) continue;
      if (added === undefined) newProps.set(on, (added = new Set()));
      added.add(name);
      newPropCount++;
      grew = true;
      checkName(index, 'property name', name);
    }
    if (!grew) return;
    const found = types.propertyCount(on) + added!.size;
    if (found > caps.maxPropertiesPerLabel) cross(`props\u0000${on}`, 'maxPropertiesPerLabel', index, found, (n) => `label "${on}" would have ${n} properties`);
    checkFields(index);
  };
  const edge = (index: number, type: string, src: string, tgt: string): void => {
    if (!types.hasEdgeType(type) && !newEdgeTypes.has(type)) {
      newEdgeTypes.add(type);
      checkName(index, 'edge type', type);
      const found = types.edgeTypeCount + newEdgeTypes.size;
      if (found > caps.maxEdgeTypes) cross('edgeTypes', 'maxEdgeTypes', index, found, (n) => `graph "${store.name}" would have ${n} edge types`);
    }
    const key = `${type}\u0000${src}\u0000${tgt}`;
    if (types.hasPair(type, src, tgt) || newPairs.has(key)) return;
    newPairs.add(key);
    checkFields(index);
  };

  for (let i = 0; i < mutations.length; i++) {
    const m = mutations[i]!;
    switch (m.op) {
      case 'createNode':
        created.set(m.id, m.label);
        label(i, m.label);
        props(i, m.label, Object.keys(m.props));
        break;
      case 'updateNode': {
        const on = labelOf(m.id);
        if (on !== undefined) props(i, on, Object.keys(m.set));
        break;
      }
      case 'addEdge': {
        const src = labelOf(m.src);
        const tgt = labelOf(m.tgt);
        if (src !== undefined && tgt !== undefined) edge(i, m.type, src, tgt);
        break;
      }
      default:
        break;
    }
  }
  if (first === undefined) return;
  const { cap, index, what, found } = first;
  const max = caps[cap];
  throw new ToolgraphError('TG_SCHEMA_CAP_EXCEEDED',
    `mutations[${index}]: ${what(found)}; the cap is ${max} (${SCHEMA_CAP_SETTINGS[cap]}). Nothing was written: the graph's schema only grows, so reuse existing labels, properties and edge types, or raise the cap.`,
    { details: { limit: cap, max, found, setting: SCHEMA_CAP_SETTINGS[cap], index } });
}
