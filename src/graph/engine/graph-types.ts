import { createHash } from 'node:crypto';
import { sha256Hex } from '../../digest/index.ts';
import type { EdgeTypeInfo, GraphCatalogue, LabelInfo, PropertyType } from './types.ts';

/** Names are ASCII GraphQL names, so the native order is code-point order. */
function sortedKeys<T>(map: Map<string, T>): string[] {
  return [...map.keys()].sort();
}

/** A label's or edge type's public form with the digest of its JSON, built once per change of it. */
interface Part<T> {
  readonly info: T;
  readonly digest: string;
}

/**
 * The types one graph has seen: its labels with their property types, and its edge types with the
 * label pairs they join. It only grows (see types.ts). `read()` memoises the public form, the
 * GraphCatalogue; its epoch is a digest of it, so equal catalogues have equal epochs on every instance.
 *
 * A change costs in proportion to what changed: `read()` rebuilds only the LabelInfo and EdgeTypeInfo
 * objects of labels and edge types that changed (the others are the same objects as before, so
 * readers can cache per object), and the epoch is a digest of their per-part digests.
 */
export class GraphTypes {
  readonly #labels = new Map<string, Map<string, PropertyType>>();
  /** edge type → source label → target labels */
  readonly #edges = new Map<string, Map<string, Set<string>>>();
  #propertyCount = 0;
  #pairCount = 0;
  readonly #labelParts = new Map<string, Part<LabelInfo>>();
  readonly #edgeParts = new Map<string, Part<EdgeTypeInfo>>();
  /** Sorted names, rebuilt when a label or edge type is added (never on a property change). */
  #labelOrder: string[] | null = null;
  #edgeOrder: string[] | null = null;
  #cached: GraphCatalogue | null = null;
  #namespace: string | null = null;

  static restore(data: { labels: readonly LabelInfo[]; edgeTypes: readonly EdgeTypeInfo[]; namespace?: string }): GraphTypes {
    const c = new GraphTypes();
    if (data.namespace !== undefined) c.setNamespace(data.namespace);
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
   * The size of the schema: every property of every label, plus every edge-type label pair (each
   * gives its source label an edge field and its target label an incoming one, and joins unions).
   */
  get schemaFieldCount(): number {
    return this.#propertyCount + this.#pairCount;
  }

  get namespace(): string | null {
    return this.#namespace;
  }

  /** Sets the GraphQL namespace (null: none); true when it changed (the catalogue and its epoch then change). */
  setNamespace(namespace: string | null): boolean {
    if (this.#namespace === namespace) return false;
    this.#namespace = namespace;
    this.#cached = null;
    return true;
  }

  addLabel(label: string): boolean {
    if (this.#labels.has(label)) return false;
    this.#labels.set(label, new Map());
    this.#labelOrder = null;
    this.#cached = null;
    return true;
  }

  setType(label: string, prop: string, type: PropertyType): boolean {
    let props = this.#labels.get(label);
    if (!props) {
      props = new Map();
      this.#labels.set(label, props);
      this.#labelOrder = null;
    }
    const before = props.get(prop);
    if (before === type) return false;
    if (before === undefined) this.#propertyCount++;
    props.set(prop, type);
    this.#labelParts.delete(label);
    this.#cached = null;
    return true;
  }

  addPair(type: string, src: string, tgt: string): boolean {
    let bySrc = this.#edges.get(type);
    if (!bySrc) {
      bySrc = new Map();
      this.#edges.set(type, bySrc);
      this.#edgeOrder = null;
    }
    let tgts = bySrc.get(src);
    if (!tgts) {
      tgts = new Set();
      bySrc.set(src, tgts);
    }
    if (tgts.has(tgt)) return false;
    tgts.add(tgt);
    this.#pairCount++;
    this.#edgeParts.delete(type);
    this.#cached = null;
    return true;
  }

  labelNames(): string[] {
    return [...this.#sortedLabels()];
  }

  #sortedLabels(): readonly string[] {
    this.#labelOrder ??= sortedKeys(this.#labels);
    return this.#labelOrder;
  }

  #labelPart(label: string): Part<LabelInfo> {
    let part = this.#labelParts.get(label);
    if (part === undefined) {
      const props = this.#labels.get(label)!;
      const properties: Record<string, PropertyType> = {};
      for (const prop of sortedKeys(props)) properties[prop] = props.get(prop)!;
      const info: LabelInfo = Object.freeze({ label, properties: Object.freeze(properties) });
      part = { info, digest: sha256Hex(JSON.stringify(info)) };
      this.#labelParts.set(label, part);
    }
    return part;
  }

  #edgePart(type: string): Part<EdgeTypeInfo> {
    let part = this.#edgeParts.get(type);
    if (part === undefined) {
      const bySrc = this.#edges.get(type)!;
      const pairs: { src: string; tgt: string }[] = [];
      for (const src of sortedKeys(bySrc)) for (const tgt of [...bySrc.get(src)!].sort()) pairs.push(Object.freeze({ src, tgt }));
      const info: EdgeTypeInfo = Object.freeze({ type, pairs: Object.freeze(pairs) });
      part = { info, digest: sha256Hex(JSON.stringify(info)) };
      this.#edgeParts.set(type, part);
    }
    return part;
  }

  read(): GraphCatalogue {
    if (this.#cached) return this.#cached;
    const labelParts = this.#sortedLabels().map((label) => this.#labelPart(label));
    this.#edgeOrder ??= sortedKeys(this.#edges);
    const edgeParts = this.#edgeOrder.map((type) => this.#edgePart(type));
    // A digest of the parts' digests, in order: the same content gives the same epoch everywhere.
    const hash = createHash('sha256');
    for (const part of labelParts) hash.update(part.digest);
    hash.update('|');
    for (const part of edgeParts) hash.update(part.digest);
    // Only a namespace adds to the digest: a graph without one keeps the epoch it always had.
    if (this.#namespace !== null) hash.update(`|namespace:${this.#namespace}`);
    const epoch = hash.digest('hex').slice(0, 16);
    this.#cached = Object.freeze({
      epoch,
      ...(this.#namespace === null ? {} : { namespace: this.#namespace }),
      labels: Object.freeze(labelParts.map((p) => p.info)),
      edgeTypes: Object.freeze(edgeParts.map((p) => p.info)),
    });
    return this.#cached;
  }
}
