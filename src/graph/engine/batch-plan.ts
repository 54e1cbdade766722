import { ToolgraphError, describeValue, isToolgraphError } from '../../errors/index.ts';
import { assertGraphqlName, assertNodeId } from './names.ts';
import { kindOf, typeAfter } from './property-values.ts';
import { freezeProps, type GraphStore } from './graph-store.ts';
import type { AccessDocument, Mutation, NodeRecord, Properties, PropertyType, PropertyValue } from './types.ts';
import type { WriteMeter } from './write-limits.ts';
import { runWhole, type SlicedWork } from './work-slices.ts';

export interface PlanOptions {
  /** Accept setAccess and setNamespace (the engine's own batches and replays); client batches never carry them. */
  readonly access?: boolean;
  /** BatchRequest.visible: stored nodes it rejects count as missing for every mutation but createNode. */
  readonly visible?: (node: NodeRecord) => boolean;
  /** Charged every mutation once it is checked, before it is kept: a batch over a write cap stops there. Replays have none. */
  readonly meter?: WriteMeter;
}

export interface BatchPlan {
  readonly mutations: Mutation[];
  readonly ids: (string | null)[];
}

const OPS = ['createNode', 'updateNode', 'deleteNode', 'addEdge', 'removeEdge'] as const;
const FIELDS: Record<(typeof OPS)[number], readonly string[]> = {
  createNode: ['op', 'id', 'label', 'props'],
  updateNode: ['op', 'id', 'set', 'unset'],
  deleteNode: ['op', 'id'],
  addEdge: ['op', 'src', 'tgt', 'type'],
  removeEdge: ['op', 'src', 'tgt', 'type'],
};

function bad(message: string): ToolgraphError {
  return new ToolgraphError('TG_BAD_REQUEST', message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function edgeKey(src: string, type: string, tgt: string): string {
  return `${src.length}:${src}${type}\u0000${tgt}`;
}

/** Mutations planned between two points where planning may pause (a clock reading costs about as much as one). */
const PLAN_STEP = 64;

/**
 * Validates a whole batch against the graph as the batch itself changes it (an overlay; the graph is
 * not touched) and returns the normalised mutations to log and apply. Throws the first problem with
 * the mutation's index; nothing has changed then.
 */
export function planBatch(store: GraphStore, inputs: unknown, newId: () => string, options: PlanOptions = {}): BatchPlan {
  return runWhole(planBatchSteps(store, inputs, newId, options));
}

/**
 * `planBatch` as sliced work (work-slices.ts): it may pause every few mutations, so a batch of
 * thousands of mutations is planned over several turns of the event loop. The graph must not change
 * meanwhile: the engine plans inside the graph's queue, where no other write runs.
 */
export function* planBatchSteps(store: GraphStore, inputs: unknown, newId: () => string, options: PlanOptions = {}): SlicedWork<BatchPlan> {
  if (!Array.isArray(inputs) || inputs.length === 0) {
    throw bad(`A batch needs a non-empty list of mutations; got ${describeValue(inputs)}.`);
  }
  /** id → label while it exists in the batch's view, null once deleted in the batch. */
  const nodes = new Map<string, string | null>();
  const deleted = new Set<string>();
  const edges = new Map<string, { src: string; tgt: string; present: boolean }>();
  /**
   * node id → keys of `edges` touching it, so a deleteNode visits only its own edges, not the whole
   * batch's. Built at the batch's first deleteNode: batches without one do not pay for it.
   */
  let edgesOf: Map<string, string[]> | null = null;
  const listEdge = (key: string, src: string, tgt: string): void => {
    for (const end of src === tgt ? [src] : [src, tgt]) {
      const keys = edgesOf!.get(end);
      if (keys) keys.push(key);
      else edgesOf!.set(end, [key]);
    }
  };
  const types = new Map<string, PropertyType>();

  const labelOf = (id: string): string | undefined => {
    const o = nodes.get(id);
    if (o !== undefined) return o ?? undefined;
    return store.nodes.get(id)?.label;
  };
  const visible = options.visible;
  /** As labelOf, for a writer that may not see every node: a hidden stored node is not there. */
  const visibleLabelOf = visible === undefined ? labelOf : (id: string): string | undefined => {
    const o = nodes.get(id);
    if (o !== undefined) return o ?? undefined;
    const cell = store.nodes.get(id);
    return cell !== undefined && visible(cell) ? cell.label : undefined;
  };
  const requireNode = (id: unknown, field: string): string => {
    assertNodeId(id);
    const label = visibleLabelOf(id);
    if (label === undefined) throw new ToolgraphError('TG_NODE_NOT_FOUND', `${field}: no node has id ${describeValue(id)} in graph "${store.name}".`);
    return label;
  };
  const edgeExists = (src: string, type: string, tgt: string): boolean => {
    const o = edges.get(edgeKey(src, type, tgt));
    if (o) return o.present;
    if (deleted.has(src) || deleted.has(tgt)) return false;
    const s = store.nodes.get(src);
    const t = store.nodes.get(tgt);
    return s !== undefined && t !== undefined && s.hasOut(type, t);
  };
  /** Checks names and types; returns the non-null values (sorted) and the names set to null. */
  const checkProps = (label: string, props: unknown, field: string): { set: Record<string, PropertyValue>; nulls: string[] } => {
    if (!isPlainObject(props)) throw bad(`${field}: expected an object of property values; got ${describeValue(props)}.`);
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
      const declared = types.get(typeKey) ?? store.types.typeOf(label, name);
      if (declared === undefined) {
        if (kind === 'emptyList') {
          throw new ToolgraphError('TG_VALUE_INVALID', `${field}.${name}: an empty list cannot fix the type of the new property "${name}" of label ${label}; write a non-empty list first.`);
        }
        types.set(typeKey, kind);
      } else {
        const after = typeAfter(declared, kind);
        if (after === undefined) {
          throw new ToolgraphError('TG_VALUE_INVALID',
            `${field}.${name}: property "${name}" of label ${label} is ${declared} (fixed by its first write; only Int widens to Float); got ${kind === 'emptyList' ? 'an empty list' : `${kind} ${describeValue(value)}`}.`);
        }
        if (after !== declared) types.set(typeKey, after);
      }
      set[name] = value as PropertyValue;
    }
    return { set, nulls };
  };

  const mutations: Mutation[] = [];
  const ids: (string | null)[] = [];
  const meter = options.meter;
  for (let i = 0; i < inputs.length; i++) {
    if (i % PLAN_STEP === PLAN_STEP - 1) yield;
    const input: unknown = inputs[i];
    const at = `mutations[${i}]`;
    try {
      if (options.access === true && isPlainObject(input) && input.op === 'setAccess') {
        const policy = input.policy;
        if (policy !== null && !isPlainObject(policy)) throw bad(`setAccess: expected a policy object or null; got ${describeValue(policy)}.`);
        mutations.push({ op: 'setAccess', policy: policy as AccessDocument | null });
        ids.push(null);
        continue;
      }
      if (options.access === true && isPlainObject(input) && input.op === 'setNamespace') {
        const namespace = input.namespace;
        if (namespace !== null && typeof namespace !== 'string') throw bad(`setNamespace: expected a name or null; got ${describeValue(namespace)}.`);
        mutations.push({ op: 'setNamespace', namespace });
        ids.push(null);
        continue;
      }
      if (!isPlainObject(input) || !OPS.includes(input.op as never)) {
        throw bad(`expected an object with op one of ${OPS.join(', ')}; got ${isPlainObject(input) ? `op ${describeValue(input.op)}` : describeValue(input)}.`);
      }
      const op = input.op as (typeof OPS)[number];
      for (const key of Object.keys(input)) {
        if (!FIELDS[op].includes(key)) throw bad(`${op} takes ${FIELDS[op].join(', ')}; got an unknown field ${describeValue(key)}.`);
      }
      switch (op) {
        case 'createNode': {
          assertGraphqlName('label', input.label);
          const label = input.label;
          let id: string;
          if (input.id === undefined) {
            do id = newId(); while (labelOf(id) !== undefined);
          } else {
            assertNodeId(input.id);
            id = input.id;
            if (labelOf(id) !== undefined) throw new ToolgraphError('TG_NODE_EXISTS', `a node with id ${describeValue(id)} already exists in graph "${store.name}".`);
          }
          // Counted before checked: a createNode over the change cap is refused without validating it.
          if (meter !== undefined && isPlainObject(input.props)) meter.precheck({ op, label, props: input.props as Properties });
          const { set } = checkProps(label, input.props ?? {}, 'props');
          meter?.charge({ op, id, label, props: set });
          nodes.set(id, label);
          mutations.push({ op, id, label, props: freezeProps(set) });
          ids.push(id);
          break;
        }
        case 'updateNode': {
          const label = requireNode(input.id, 'id');
          const id = input.id as string;
          if (meter !== undefined && isPlainObject(input.set)) {
            meter.precheck({ op, id, set: input.set as Properties, ...(Array.isArray(input.unset) ? { unset: input.unset as string[] } : {}) });
          }
          const { set, nulls } = checkProps(label, input.set ?? {}, 'set');
          const unset = new Set(nulls);
          if (input.unset !== undefined) {
            if (!Array.isArray(input.unset)) throw bad(`unset: expected a list of property names; got ${describeValue(input.unset)}.`);
            for (const name of input.unset as unknown[]) {
              assertGraphqlName('property name', name);
              if (Object.hasOwn(set, name)) throw bad(`property "${name}" is both set and unset.`);
              unset.add(name);
            }
          }
          const sortedUnset = unset.size > 0 ? [...unset].sort() : undefined;
          meter?.charge(sortedUnset === undefined ? { op, id, set } : { op, id, set, unset: sortedUnset });
          const m: Mutation = sortedUnset === undefined ? { op, id, set: freezeProps(set) } : { op, id, set: freezeProps(set), unset: sortedUnset };
          mutations.push(m);
          ids.push(id);
          break;
        }
        case 'deleteNode': {
          requireNode(input.id, 'id');
          const id = input.id as string;
          meter?.charge({ op, id });
          nodes.set(id, null);
          deleted.add(id);
          if (edgesOf === null) {
            edgesOf = new Map();
            for (const [key, e] of edges) listEdge(key, e.src, e.tgt);
          }
          for (const key of edgesOf.get(id) ?? []) edges.get(key)!.present = false;
          edgesOf.delete(id);
          mutations.push({ op, id });
          ids.push(id);
          break;
        }
        case 'addEdge':
        case 'removeEdge': {
          assertGraphqlName('edge type', input.type);
          requireNode(input.src, 'src');
          requireNode(input.tgt, 'tgt');
          const src = input.src as string;
          const tgt = input.tgt as string;
          const type = input.type;
          if (op === 'removeEdge' && !edgeExists(src, type, tgt)) {
            throw new ToolgraphError('TG_EDGE_NOT_FOUND', `no ${type} edge from ${describeValue(src)} to ${describeValue(tgt)} in graph "${store.name}".`);
          }
          meter?.charge({ op, src, tgt, type });
          const key = edgeKey(src, type, tgt);
          // Listed again on every mutation (at most one entry per mutation), so a node deleted,
          // re-created and linked again in the same batch still finds its new edges.
          if (edgesOf !== null) listEdge(key, src, tgt);
          edges.set(key, { src, tgt, present: op === 'addEdge' });
          mutations.push({ op, src, tgt, type });
          ids.push(null);
          break;
        }
      }
    } catch (error) {
      if (isToolgraphError(error)) {
        throw new ToolgraphError(error.code, `${at}: ${error.message}`, { details: { ...error.details, index: i }, cause: error });
      }
      throw error;
    }
  }
  return { mutations, ids };
}
