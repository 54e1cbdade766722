import { ToolgraphError, describeValue, isToolgraphError } from '../../errors/index.ts';
import { BatchOverlay, isPlainObject } from './batch-overlay.ts';
import { assertGraphqlName, assertNodeId } from './names.ts';
import { freezeProps, type GraphStore } from './graph-store.ts';
import type { AccessDocument, Mutation, NodeRecord, Properties } from './types.ts';
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
type ClientOp = (typeof OPS)[number];
const FIELDS: Record<ClientOp, readonly string[]> = {
  createNode: ['op', 'id', 'label', 'props'],
  updateNode: ['op', 'id', 'set', 'unset'],
  deleteNode: ['op', 'id'],
  addEdge: ['op', 'src', 'tgt', 'type'],
  removeEdge: ['op', 'src', 'tgt', 'type'],
};

function bad(message: string): ToolgraphError {
  return new ToolgraphError('TG_BAD_REQUEST', message);
}

/** Mutations planned between two points where planning may pause (a clock reading costs about as much as one). */
const PLAN_STEP = 64;

/** What planning one mutation works with: the batch's view of the graph, the plan so far, new ids and the write meter. */
interface PlanContext {
  readonly overlay: BatchOverlay;
  readonly plan: BatchPlan;
  readonly newId: () => string;
  readonly meter: WriteMeter | undefined;
}

function keep(plan: BatchPlan, mutation: Mutation, id: string | null): void {
  plan.mutations.push(mutation);
  plan.ids.push(id);
}

function planSetAccess({ plan }: PlanContext, input: Record<string, unknown>): void {
  const policy = input.policy;
  if (policy !== null && !isPlainObject(policy)) throw bad(`setAccess: expected a policy object or null; got ${describeValue(policy)}.`);
  keep(plan, { op: 'setAccess', policy: policy as AccessDocument | null }, null);
}

function planSetNamespace({ plan }: PlanContext, input: Record<string, unknown>): void {
  const namespace = input.namespace;
  if (namespace !== null && typeof namespace !== 'string') throw bad(`setNamespace: expected a name or null; got ${describeValue(namespace)}.`);
  keep(plan, { op: 'setNamespace', namespace }, null);
}

/** The client mutation's op, once it names one and carries only that op's fields. */
function clientOpOf(input: unknown): ClientOp {
  if (!isPlainObject(input) || !OPS.includes(input.op as never)) {
    throw bad(`expected an object with op one of ${OPS.join(', ')}; got ${isPlainObject(input) ? `op ${describeValue(input.op)}` : describeValue(input)}.`);
  }
  const op = input.op as ClientOp;
  for (const key of Object.keys(input)) {
    if (!FIELDS[op].includes(key)) throw bad(`${op} takes ${FIELDS[op].join(', ')}; got an unknown field ${describeValue(key)}.`);
  }
  return op;
}

function planCreateNode({ overlay, plan, newId, meter }: PlanContext, input: Record<string, unknown>): void {
  const op = 'createNode';
  assertGraphqlName('label', input.label);
  const label = input.label;
  let id: string;
  if (input.id === undefined) {
    do id = newId(); while (overlay.labelOf(id) !== undefined);
  } else {
    assertNodeId(input.id);
    id = input.id;
    if (overlay.labelOf(id) !== undefined) throw new ToolgraphError('TG_NODE_EXISTS', `a node with id ${describeValue(id)} already exists in graph "${overlay.store.name}".`);
  }
  // Counted before checked: a createNode over the change cap is refused without validating it.
  if (meter !== undefined && isPlainObject(input.props)) meter.precheck({ op, label, props: input.props as Properties });
  const { set } = overlay.checkProps(label, input.props ?? {}, 'props');
  meter?.charge({ op, id, label, props: set });
  overlay.created(id, label);
  keep(plan, { op, id, label, props: freezeProps(set) }, id);
}

function planUpdateNode({ overlay, plan, meter }: PlanContext, input: Record<string, unknown>): void {
  const op = 'updateNode';
  const label = overlay.requireNode(input.id, 'id');
  const id = input.id as string;
  if (meter !== undefined && isPlainObject(input.set)) {
    meter.precheck({ op, id, set: input.set as Properties, ...(Array.isArray(input.unset) ? { unset: input.unset as string[] } : {}) });
  }
  const { set, nulls } = overlay.checkProps(label, input.set ?? {}, 'set');
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
  keep(plan, m, id);
}

function planDeleteNode({ overlay, plan, meter }: PlanContext, input: Record<string, unknown>): void {
  const op = 'deleteNode';
  overlay.requireNode(input.id, 'id');
  const id = input.id as string;
  meter?.charge({ op, id });
  overlay.deleted(id);
  keep(plan, { op, id }, id);
}

function planEdge({ overlay, plan, meter }: PlanContext, op: 'addEdge' | 'removeEdge', input: Record<string, unknown>): void {
  assertGraphqlName('edge type', input.type);
  overlay.requireNode(input.src, 'src');
  overlay.requireNode(input.tgt, 'tgt');
  const src = input.src as string;
  const tgt = input.tgt as string;
  const type = input.type;
  if (op === 'removeEdge' && !overlay.edgeExists(src, type, tgt)) {
    throw new ToolgraphError('TG_EDGE_NOT_FOUND', `no ${type} edge from ${describeValue(src)} to ${describeValue(tgt)} in graph "${overlay.store.name}".`);
  }
  meter?.charge({ op, src, tgt, type });
  overlay.edgeSet(src, type, tgt, op === 'addEdge');
  keep(plan, { op, src, tgt, type }, null);
}

/** Checks one mutation against the batch's view, adds it to the plan and applies it to the view. */
function planMutation(context: PlanContext, input: unknown, access: boolean): void {
  if (access && isPlainObject(input) && input.op === 'setAccess') planSetAccess(context, input);
  else if (access && isPlainObject(input) && input.op === 'setNamespace') planSetNamespace(context, input);
  else {
    const op = clientOpOf(input);
    const fields = input as Record<string, unknown>;
    switch (op) {
      case 'createNode':
        planCreateNode(context, fields);
        break;
      case 'updateNode':
        planUpdateNode(context, fields);
        break;
      case 'deleteNode':
        planDeleteNode(context, fields);
        break;
      case 'addEdge':
      case 'removeEdge':
        planEdge(context, op, fields);
        break;
    }
  }
}

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
  const plan: BatchPlan = { mutations: [], ids: [] };
  const context: PlanContext = { overlay: new BatchOverlay(store, options.visible), plan, newId, meter: options.meter };
  const access = options.access === true;
  for (let i = 0; i < inputs.length; i++) {
    if (i % PLAN_STEP === PLAN_STEP - 1) yield;
    try {
      planMutation(context, inputs[i], access);
    } catch (error) {
      if (isToolgraphError(error)) {
        throw new ToolgraphError(error.code, `mutations[${i}]: ${error.message}`, { details: { ...error.details, index: i }, cause: error });
      }
      throw error;
    }
  }
  return plan;
}
