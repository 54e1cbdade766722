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
    if (props.get(prop) === type) return false;
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
    }
    if (tgts.has(tgt)) return false;
    tgts.add(tgt);
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
