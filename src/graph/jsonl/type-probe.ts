import {
  GraphEngine, kindOf, type GraphCatalogue, type LoadedState, type PersistenceAdapter, type PropertyType, type PropertyValue,
} from '../engine/index.ts';

/** Stores nothing: the probe's graph lives only for one import check. */
const nowhere: PersistenceAdapter = {
  kind: 'none',
  load: async (): Promise<LoadedState> => ({ snapshots: [], records: [] }),
  append: async () => undefined,
  writeSnapshot: async () => undefined,
  close: async () => undefined,
};

/** A value of each property type, to give the probe the target graph's existing types. */
const SAMPLES: Record<PropertyType, PropertyValue> = {
  String: 's', Int: 0, Float: 0.5, Boolean: true,
  '[String]': ['s'], '[Int]': [0], '[Float]': [0.5], '[Boolean]': [true],
};

const PROBE = 'probe';

/**
 * Checks property types across a whole file before anything is committed, by the engine's own rules:
 * a scratch graph starts with the target graph's property types, and every (label, property, kind)
 * the file brings for the first time is written to it as a one-property node. So a type clash
 * within the file, or against the graph, is found in the first pass, and whatever the engine
 * accepts (Int into Float, say) the probe accepts too. It holds one node per distinct combination,
 * not the file.
 */
export class TypeProbe {
  readonly #engine: GraphEngine;
  readonly #seen = new Set<string>();
  #next = 0;

  private constructor(engine: GraphEngine) {
    this.#engine = engine;
  }

  static async start(existing: GraphCatalogue | undefined): Promise<TypeProbe> {
    const engine = await GraphEngine.open({ persistence: nowhere, snapshotEvery: 0 });
    await engine.createGraph(PROBE);
    const probe = new TypeProbe(engine);
    const seed = [];
    for (const info of existing?.labels ?? []) {
      const props: Record<string, PropertyValue> = {};
      for (const [name, type] of Object.entries(info.properties)) {
        if (Object.hasOwn(SAMPLES, type)) props[name] = SAMPLES[type];
      }
      seed.push({ op: 'createNode' as const, id: probe.#id(), label: info.label, props });
    }
    if (seed.length > 0) await engine.commit({ graph: PROBE, mutations: seed });
    return probe;
  }

  /**
   * Undefined when every property of the node is of a kind already checked for its label (the common
   * case, with no await); else a promise that rejects with the engine's TG_VALUE_INVALID when a value
   * does not fit its property's type.
   */
  check(label: string, props: Readonly<Record<string, PropertyValue>>): Promise<void> | undefined {
    let fresh: Record<string, PropertyValue> | undefined;
    for (const name in props) {
      const value = props[name]!;
      const key = `${label}\u0000${name}\u0000${kindOf(value, name)}`;
      if (this.#seen.has(key)) continue;
      (fresh ??= {})[name] = value;
    }
    if (fresh === undefined) return undefined;
    const checked = fresh;
    return this.#engine.commit({ graph: PROBE, mutations: [{ op: 'createNode', id: this.#id(), label, props: checked }] }).then(() => {
      for (const name in checked) this.#seen.add(`${label}\u0000${name}\u0000${kindOf(checked[name], name)}`);
    });
  }

  async close(): Promise<void> {
    await this.#engine.close();
  }

  #id(): string {
    return `p${this.#next++}`;
  }
}
