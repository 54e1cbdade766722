import { getArgumentValues, type FieldNode, type GraphQLObjectType } from 'graphql';
import { ToolgraphError, describeValue, isToolgraphError } from '../../errors/index.ts';
import type { Principal } from '../../principal/index.ts';
import type { MutationInput, Properties } from '../engine/index.ts';
import { collectFields, subSelections, type CollectedFields } from './collect-fields.ts';
import type { ExecState } from './exec-state.ts';
import { isBudgetRefusal } from './budget-meter.ts';
import { NullBubble, toGraphQLError } from './graphql-errors.ts';
import { shapeNodes, type Shaped } from './shape-nodes.ts';
import { finish } from './work.ts';
import { commitVisible, visibleView, type GraphqlEngine } from './visible-view.ts';

interface PlannedField {
  readonly key: string;
  /** The mutation it runs (`createNode`…): the field's name without the namespace's prefix. */
  readonly name: string;
  /** The field's name as the schema has it (`crm_createNode` in namespace crm). */
  readonly field: string;
  readonly nodes: readonly FieldNode[];
  /** Index of its mutation in the batch; -1 for __typename. */
  readonly index: number;
}

export interface MutationTarget {
  readonly engine: GraphqlEngine;
  readonly graph: string;
  readonly principal: Principal;
}

export interface MutationOutcome {
  readonly data: Record<string, unknown> | null;
  /** The version the batch produced (or read, when the operation changed nothing). */
  readonly version: number;
}

function toInput(name: string, args: Record<string, unknown>): MutationInput {
  switch (name) {
    case 'createNode': {
      const id = args['id'];
      return { op: 'createNode', label: args['label'] as string, props: args['props'] as Properties, ...(typeof id === 'string' ? { id } : {}) };
    }
    case 'updateNode': {
      const set = args['set'];
      const unset = args['unset'];
      return {
        op: 'updateNode', id: args['id'] as string, set: (set ?? {}) as Properties,
        ...(Array.isArray(unset) ? { unset: unset as string[] } : {}),
      };
    }
    case 'deleteNode':
      return { op: 'deleteNode', id: args['id'] as string };
    case 'addEdge':
    case 'removeEdge':
      return { op: name, src: args['src'] as string, tgt: args['tgt'] as string, type: args['type'] as string };
    default:
      throw new ToolgraphError('TG_INTERNAL', `No mutation is named ${name}.`);
  }
}

/**
 * Plans every mutation field of the operation into one batch: inputs in selection order (after
 * fragments and @skip/@include), the one expected version they agree on, and a refusal when a
 * field would return a node that a later field deletes.
 */
function planBatch(state: ExecState, fields: CollectedFields): { planned: PlannedField[]; inputs: MutationInput[]; expectedVersion: number | undefined } {
  const mutationType = state.graphSchema.schema.getMutationType() as GraphQLObjectType;
  const planned: PlannedField[] = [];
  const inputs: MutationInput[] = [];
  let expectedVersion: number | undefined;
  let versionFrom = '';
  const prefix = state.graphSchema.names.fieldPrefix;
  for (const [key, nodes] of fields) {
    const field = nodes[0]!.name.value;
    if (field === '__typename') {
      planned.push({ key, name: field, field, nodes, index: -1 });
      continue;
    }
    // Validation admitted only this schema's Mutation fields, which all carry the prefix.
    const name = field.slice(prefix.length);
    const args = getArgumentValues(mutationType.getFields()[field]!, nodes[0]!, state.variables as Record<string, unknown>);
    const expected = args['expectedVersion'];
    if (typeof expected === 'number') {
      if (expectedVersion !== undefined && expected !== expectedVersion) {
        throw Object.assign(new ToolgraphError('TG_BAD_REQUEST',
          `${key}: expectedVersion ${expected} differs from ${expectedVersion} given on ${versionFrom}; one operation is one batch with one expected version.`), { key });
      }
      expectedVersion = expected;
      versionFrom = key;
    }
    planned.push({ key, name, field, nodes, index: inputs.length });
    inputs.push(toInput(name, args));
  }
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i]!;
    const id = input.op === 'createNode' || input.op === 'updateNode' ? input.id : undefined;
    if (id === undefined) continue;
    const later = inputs.findIndex((m, j) => j > i && m.op === 'deleteNode' && m.id === id);
    if (later >= 0) {
      const field = planned.find((p) => p.index === i)!;
      throw Object.assign(new ToolgraphError('TG_BAD_REQUEST',
        `${field.key}: ${field.field} returns node ${describeValue(id)}, but ${planned.find((p) => p.index === later)!.key} deletes it later in the same operation; split the operation in two.`), { key: field.key });
    }
  }
  return { planned, inputs, expectedVersion };
}

/** The response key a batch failure belongs to: the field of the failing mutation, else the first. */
function keyOf(error: unknown, planned: readonly PlannedField[]): string {
  const own = (error as { key?: unknown }).key;
  if (typeof own === 'string') return own;
  const index = isToolgraphError(error) ? error.details?.['index'] : undefined;
  return planned.find((p) => p.index === index)?.key ?? planned.find((p) => p.index >= 0)?.key ?? planned[0]!.key;
}

/** Engine messages for a batch start with `mutations[i]: `; GraphQL errors name the field instead. */
function renamed(error: unknown, key: string): unknown {
  if (isToolgraphError(error) && /^mutations\[\d+\]: /.test(error.message)) {
    return new ToolgraphError(error.code, `${key}: ${error.message.replace(/^mutations\[\d+\]: /, '')}`, { ...(error.details ? { details: error.details } : {}), cause: error });
  }
  return error;
}

/**
 * Runs a mutation operation: all its fields are one atomic batch with one version bump (or none
 * when every field is skipped). Nothing is written when any field is refused; `data` is then null
 * with one error at the failing field. After the commit, the objects the fields return are read
 * from the committed graph and shaped by the same executor as queries.
 */
export async function executeMutationFields(state: ExecState, fields: CollectedFields, target: MutationTarget): Promise<MutationOutcome> {
  let plan: ReturnType<typeof planBatch>;
  try {
    plan = planBatch(state, fields);
  } catch (error) {
    const key = (error as { key?: string }).key ?? [...fields.keys()][0]!;
    state.errors.push(toGraphQLError(error, { nodes: fields.get(key), path: [key] }));
    return { data: null, version: state.view.version };
  }
  const { planned, inputs, expectedVersion } = plan;
  let ids: readonly (string | null)[] = [];
  let version = state.view.version;
  if (inputs.length > 0) {
    try {
      const committed = await commitVisible(target.engine, target.principal, { graph: target.graph, mutations: inputs, ...(expectedVersion === undefined ? {} : { expectedVersion }) });
      ids = committed.ids;
      version = committed.version;
    } catch (error) {
      const key = keyOf(error, planned);
      state.errors.push(toGraphQLError(renamed(error, key), { nodes: fields.get(key), path: [key] }));
      return { data: null, version: state.view.version };
    }
  }
  const after: ExecState = { ...state, view: visibleView(target.engine, target.graph, target.principal) };
  const data: Record<string, unknown> = {};
  let current: PlannedField | undefined;
  try {
    for (const field of planned) {
      current = field;
      data[field.key] = fieldResult(after, field, ids);
    }
  } catch (error) {
    if (isBudgetRefusal(error) && current !== undefined) {
      // The batch is committed: the refusal is the returned selection's, and the version says what was written.
      after.errors.push(toGraphQLError(error, { nodes: current.nodes, path: [current.key] }));
      return { data: null, version };
    }
    if (!(error instanceof NullBubble)) throw error;
    after.errors.push(error.error);
    return { data: null, version };
  }
  return { data, version };
}

function fieldResult(state: ExecState, field: PlannedField, ids: readonly (string | null)[]): unknown {
  const { key, name, nodes } = field;
  switch (name) {
    case '__typename':
      return 'Mutation';
    case 'createNode':
    case 'updateNode': {
      const id = ids[field.index]!;
      const node = state.view.node(id);
      if (node === undefined) {
        throw new NullBubble(toGraphQLError(new ToolgraphError('TG_NODE_NOT_FOUND', `${key}: node ${describeValue(id)} was deleted by another writer right after this batch committed.`), { nodes, path: [key] }));
      }
      state.meter.rows(1, 0);
      return finish(shapeNodes(state, [node], nodes, 0, () => [key]))[0];
    }
    default: {
      const typeName = name === 'deleteNode' ? 'DeleteResult' : 'EdgeResult';
      const out: Shaped = {};
      for (const [rkey, rnodes] of collectFields(state, typeName, subSelections(nodes))) {
        const f = rnodes[0]!.name.value;
        out[rkey] = f === 'ok' ? true : f === 'id' ? ids[field.index] : typeName;
      }
      return out;
    }
  }
}
