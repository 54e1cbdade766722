import { createHash } from 'node:crypto';
import type { EdgeTypeInfo, GraphCatalogue, LabelInfo, PropertyType } from './types.ts';

/** Names are ASCII GraphQL names, so the native order is code-point order. */
function sortedKeys<T>(map: Map<string, T>): string[] {
  return [...map.keys()].sort();
}

/**
 * The types one graph has seen: its labels with their property types, and its edge types with the
 * label pairs they join. It only grows (see types.ts). `read()` memoises the public form, the
 * GraphCatalogue; its epoch is a digest of it, so equal catalogues have equal epochs on every instance.
 */
export class GraphTypes {
  readonly #labels = new Map<string, Map<string, PropertyType>>();
  /** edge type → source label → target labels */
  readonly #edges = new Map<string, Map<string, Set<string>>>();
  /** edge type → target labels (the labels that get its `<TYPE>_in` field) */
  readonly #targets = new Map<string, Set<string>>();
  #propertyCount = 0;
  #edgeFieldCount = 0;
  #cached: GraphCatalogue | null = null;

  static restore(data: { labels: readonly LabelInfo[]; edgeTypes: readonly EdgeTypeInfo[] }): GraphTypes {
    const c = new GraphTypes();
    for (const info of data.labels) {
      c.addLabel(info.label);
      for (const [prop, type] of Object.entries(info.properties)) c.setType(info.label, prop, type);
    }
    for (const info of data.edgeTypes) for (const pair of info.pairs) c.addPair(info.type, pair.src, pair.tgt);
    return c;
  }

  hasLabel(label: string): boolean {
    return this.#labels.has(label);
  }

  typeOf(label: string, prop: string): PropertyType | undefined {
    return this.#labels.get(label)?.get(prop);
  }

  hasPair(type: string, src: string, tgt: string): boolean {
    return this.#edges.get(type)?.get(src)?.has(tgt) ?? false;
  }

  hasEdgeType(type: string): boolean {
    return this.#edges.has(type);
  }

  get labelCount(): number {
    return this.#labels.size;
  }

  get edgeTypeCount(): number {
    return this.#edges.size;
  }

  /** Properties of one label (0 for an unknown label). */
  propertyCount(label: string): number {
    return this.#labels.get(label)?.size ?? 0;
  }

  /**
   * Fields the GraphQL label types have besides `id`: every property of every label, and one edge
   * field per edge type and direction on each label it joins (see src/graph/schema/schema-model.ts).
   */
  get schemaFieldCount(): number {
    return this.#propertyCount + this.#edgeFieldCount;
  }

  /** Whether `label` already has the outgoing (`out`) or incoming edge field of an edge type. */
  hasEdgeField(type: string, label: string, out: boolean): boolean {
    return out ? this.#edges.get(type)?.has(label) ?? false : this.#targets.get(type)?.has(label) ?? false;
  }

  addLabel(label: string): boolean {
    if (this.#labels.has(label)) return false;
    this.#labels.set(label, new Map());
    this.#cached = null;
    return true;
  }

  setType(label: string, prop: string, type: PropertyType): boolean {
    let props = this.#labels.get(label);
    if (!props) {
      props = new Map();
      this.#labels.set(label, props);
    }
    const before = props.get(prop);
    if (before === type) return false;
    if (before === undefined) this.#propertyCount++;
    props.set(prop, type);
    this.#cached = null;
    return true;
  }

  addPair(type: string, src: string, tgt: string): boolean {
    let bySrc = this.#edges.get(type);
    if (!bySrc) {
      bySrc = new Map();
      this.#edges.set(type, bySrc);
    }
    let tgts = bySrc.get(src);
    if (!tgts) {
      tgts = new Set();
      bySrc.set(src, tgts);
      this.#edgeFieldCount++;
    }
    if (tgts.has(tgt)) return false;
    tgts.add(tgt);
    let targets = this.#targets.get(type);
    if (!targets) {
      targets = new Set();
      this.#targets.set(type, targets);
    }
    if (!targets.has(tgt)) {
      targets.add(tgt);
      this.#edgeFieldCount++;
    }
    this.#cached = null;
    return true;
  }

  labelNames(): string[] {
    return sortedKeys(this.#labels);
  }

  read(): GraphCatalogue {
    if (this.#cached) return this.#cached;
    const labels: LabelInfo[] = sortedKeys(this.#labels).map((label) => {
      const props = this.#labels.get(label)!;
      const properties: Record<string, PropertyType> = {};
      for (const prop of sortedKeys(props)) properties[prop] = props.get(prop)!;
      return Object.freeze({ label, properties: Object.freeze(properties) });
    });
    const edgeTypes: EdgeTypeInfo[] = sortedKeys(this.#edges).map((type) => {
      const bySrc = this.#edges.get(type)!;
      const pairs: { src: string; tgt: string }[] = [];
      for (const src of sortedKeys(bySrc)) for (const tgt of [...bySrc.get(src)!].sort()) pairs.push(Object.freeze({ src, tgt }));
      return Object.freeze({ type, pairs: Object.freeze(pairs) });
    });
    const epoch = createHash('sha256').update(JSON.stringify({ labels, edgeTypes })).digest('hex').slice(0, 16);
    this.#cached = Object.freeze({ epoch, labels: Object.freeze(labels), edgeTypes: Object.freeze(edgeTypes) });
    return this.#cached;
  }
}
