import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { assertGraphqlName, assertNodeId } from './names.ts';
import { kindOf, typeAfter } from './property-values.ts';
import type { GraphStore } from './graph-store.ts';
import type { NodeRecord, PropertyType, PropertyValue } from './types.ts';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function edgeKey(src: string, type: string, tgt: string): string {
  return `${src.length}:${src}${type}\u0000${tgt}`;
}

/**
 * The graph as a batch being planned changes it: nodes created and deleted, edges added and
 * removed and property types fixed by the batch so far, over the stored graph, which is not touched.
 */
export class BatchOverlay {
  readonly store: GraphStore;
  /** BatchRequest.visible: stored nodes it rejects count as missing for every mutation but createNode. */
  readonly #visible: ((node: NodeRecord) => boolean) | undefined;
  /** id → label while it exists in the batch's view, null once deleted in the batch. */
  readonly #nodes = new Map<string, string | null>();
  readonly #deleted = new Set<string>();
  readonly #edges = new Map<string, { src: string; tgt: string; present: boolean }>();
  /**
   * node id → keys of `#edges` touching it, so a deleteNode visits only its own edges, not the whole
   * batch's. Built at the batch's first deleteNode: batches without one do not pay for it.
   */
  #edgesOf: Map<string, string[]> | null = null;
  readonly #types = new Map<string, PropertyType>();

  constructor(store: GraphStore, visible: ((node: NodeRecord) => boolean) | undefined) {
    this.store = store;
    this.#visible = visible;
  }

  /** The node's label in the batch's view, undefined when there is no such node (or it was deleted). */
  labelOf(id: string): string | undefined {
    const o = this.#nodes.get(id);
    if (o !== undefined) return o ?? undefined;
    return this.store.nodes.get(id)?.label;
  }

  /** As labelOf, for a writer that may not see every node: a hidden stored node is not there. */
  #visibleLabelOf(id: string): string | undefined {
    const visible = this.#visible;
    if (visible === undefined) return this.labelOf(id);
    const o = this.#nodes.get(id);
    if (o !== undefined) return o ?? undefined;
    const cell = this.store.nodes.get(id);
    return cell !== undefined && visible(cell) ? cell.label : undefined;
  }

  /** The label of the node `id` names, which the writer must see; TG_NODE_NOT_FOUND otherwise. */
  requireNode(id: unknown, field: string): string {
    assertNodeId(id);
    const label = this.#visibleLabelOf(id);
    if (label === undefined) throw new ToolgraphError('TG_NODE_NOT_FOUND', `${field}: no node has id ${describeValue(id)} in graph "${this.store.name}".`);
    return label;
  }

  edgeExists(src: string, type: string, tgt: string): boolean {
    const o = this.#edges.get(edgeKey(src, type, tgt));
    if (o) return o.present;
    if (this.#deleted.has(src) || this.#deleted.has(tgt)) return false;
    const s = this.store.nodes.get(src);
    const t = this.store.nodes.get(tgt);
    return s !== undefined && t !== undefined && s.hasOut(type, t);
  }

  /** Checks names and types; returns the non-null values (sorted) and the names set to null. */
  checkProps(label: string, props: unknown, field: string): { set: Record<string, PropertyValue>; nulls: string[] } {
    if (!isPlainObject(props)) throw new ToolgraphError('TG_BAD_REQUEST', `${field}: expected an object of property values; got ${describeValue(props)}.`);
    const set: Record<string, PropertyValue> = {};
    const nulls: string[] = [];
    for (const name of Object.keys(props).sort()) {
      assertGraphqlName('property name', name);
      const value = props[name];
      const kind = kindOf(value, `${field}.${name}`);
      if (kind === 'null') {
        nulls.push(name);
        continue;
      }
      const typeKey = `${label}\u0000${name}`;
      const declared = this.#types.get(typeKey) ?? this.store.types.typeOf(label, name);
      if (declared === undefined) {
        if (kind === 'emptyList') {
          throw new ToolgraphError('TG_VALUE_INVALID', `${field}.${name}: an empty list cannot fix the type of the new property "${name}" of label ${label}; write a non-empty list first.`);
        }
        this.#types.set(typeKey, kind);
      } else {
        const after = typeAfter(declared, kind);
        if (after === undefined) {
          throw new ToolgraphError('TG_VALUE_INVALID',
            `${field}.${name}: property "${name}" of label ${label} is ${declared} (fixed by its first write; only Int widens to Float); got ${kind === 'emptyList' ? 'an empty list' : `${kind} ${describeValue(value)}`}.`);
        }
        if (after !== declared) this.#types.set(typeKey, after);
      }
      set[name] = value as PropertyValue;
    }
    return { set, nulls };
  }

  created(id: string, label: string): void {
    this.#nodes.set(id, label);
  }

  /** The node is gone from the batch's view, and with it every edge touching it. */
  deleted(id: string): void {
    this.#nodes.set(id, null);
    this.#deleted.add(id);
    if (this.#edgesOf === null) {
      this.#edgesOf = new Map();
      for (const [key, e] of this.#edges) this.#listEdge(key, e.src, e.tgt);
    }
    for (const key of this.#edgesOf.get(id) ?? []) this.#edges.get(key)!.present = false;
    this.#edgesOf.delete(id);
  }

  /** The edge is present (addEdge) or absent (removeEdge) in the batch's view. */
  edgeSet(src: string, type: string, tgt: string, present: boolean): void {
    const key = edgeKey(src, type, tgt);
    // Listed again on every mutation (at most one entry per mutation), so a node deleted,
    // re-created and linked again in the same batch still finds its new edges.
    if (this.#edgesOf !== null) this.#listEdge(key, src, tgt);
    this.#edges.set(key, { src, tgt, present });
  }

  #listEdge(key: string, src: string, tgt: string): void {
    for (const end of src === tgt ? [src] : [src, tgt]) {
      const keys = this.#edgesOf!.get(end);
      if (keys) keys.push(key);
      else this.#edgesOf!.set(end, [key]);
    }
  }
}
