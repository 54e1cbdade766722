import { Kind, getArgumentValues, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import type { NodeRecord, Scalar } from '../engine/index.ts';
import { PAGINATION_ARGS } from '../schema/index.ts';
import { isBudgetRefusal } from './budget-meter.ts';
import { collectFields, subSelections, type CollectedFields } from './collect-fields.ts';
import { connectionPage, decodeCursor, encodeCursor } from './connection-page.ts';
import type { ExecState } from './exec-state.ts';
import { NullBubble, graphqlError, toGraphQLError } from './graphql-errors.ts';
import { overListLimit } from './list-limit.ts';
import { pageSize, shapeNodes, type Shaped } from './shape-nodes.ts';
import { doneWork, drive, finish, type Work } from './work.ts';

function rootField(state: ExecState, name: string): GraphQLField<unknown, unknown> {
  return (state.graphSchema.schema.getQueryType() as GraphQLObjectType).getFields()[name]!;
}

/** Arguments without variables are the same on every run of a document: coerced once per schema. */
const literalArguments = new WeakMap<object, WeakMap<FieldNode, Record<string, unknown>>>();

function usesVariables(node: FieldNode): boolean {
  return node.arguments?.some((a) => a.value.kind !== Kind.INT && a.value.kind !== Kind.STRING && a.value.kind !== Kind.BOOLEAN
    && a.value.kind !== Kind.FLOAT && a.value.kind !== Kind.NULL && a.value.kind !== Kind.ENUM) ?? false;
}

/** Root arguments coerced as graphql-js does (literals, variables, defaults). */
function rootArguments(state: ExecState, name: string, node: FieldNode): Record<string, unknown> {
  if (usesVariables(node)) return getArgumentValues(rootField(state, name), node, state.variables as Record<string, unknown>);
  const schema = state.graphSchema.schema;
  let byNode = literalArguments.get(schema);
  if (byNode === undefined) {
    byNode = new WeakMap();
    literalArguments.set(schema, byNode);
  }
  let args = byNode.get(node);
  if (args === undefined) {
    args = getArgumentValues(rootField(state, name), node, state.variables as Record<string, unknown>);
    byNode.set(node, args);
  }
  return args;
}

const filtersByArgs = new WeakMap<object, Record<string, Scalar>>();

/** The property-equality filters among a root field's arguments (`id` included; null: no such property). */
function filtersOf(args: Record<string, unknown>): Record<string, Scalar> {
  // Cached arguments (literal ones) are the same object on every run, and so are their filters.
  const known = filtersByArgs.get(args);
  if (known !== undefined) return known;
  const filter: Record<string, Scalar> = {};
  for (const key of Object.keys(args)) if (!PAGINATION_ARGS.has(key)) filter[key] = args[key] as Scalar;
  filtersByArgs.set(args, filter);
  return filter;
}

/** Runs a field-level failure through the non-null root: the whole `data` becomes null. */
function bubble(error: unknown, nodes: readonly FieldNode[], path: (string | number)[]): never {
  // The execution budget stops the request: its refusal is the whole answer, not a field's error.
  if (error instanceof NullBubble || isBudgetRefusal(error)) throw error;
  throw new NullBubble(toGraphQLError(error, { nodes, path }));
}

function optionalInt(args: Record<string, unknown>, name: string): number | undefined {
  const v = args[name];
  return typeof v === 'number' ? v : undefined;
}

function optionalString(args: Record<string, unknown>, name: string): string | undefined {
  const v = args[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * `Label(first, limit, filters…)` (named `fieldName`: a namespace prefixes it): one label scan now,
 * then the selection level by level as the work it returns.
 */
function labelList(state: ExecState, fieldName: string, label: string, key: string, nodes: readonly FieldNode[]): Work<Shaped[]> {
  const args = rootArguments(state, fieldName, nodes[0]!);
  const count = pageSize(optionalInt(args, 'first'), optionalInt(args, 'limit'), () => ({ nodes, path: [key] }));
  const rows = scanPage(state, fieldName, label, filtersOf(args), count);
  return shapeNodes(state, rows, nodes, 0, (i) => [key, i]);
}

/**
 * The rows of a root list, charged. The engine is never asked for more than one row past what the
 * budget allows (or, without a page, past the list limit): that row is enough to refuse, so a scan
 * never holds a list the refusal will throw away.
 */
function scanPage(state: ExecState, fieldName: string, label: string, filter: Record<string, Scalar>, count: number | undefined): NodeRecord[] {
  const left = state.meter.rowsLeft();
  if (count !== undefined) {
    const rows = state.view.scan(label, { filter, first: count <= left ? count : left + 1 });
    if (state.reads !== null) state.reads.scanned(label, filter, rows);
    state.meter.rows(rows.length, 0);
    return rows;
  }
  const ask = Math.min(state.listLimit, left);
  const rows = state.view.scan(label, ask < Number.MAX_SAFE_INTEGER ? { filter, first: ask + 1 } : { filter });
  if (state.reads !== null) state.reads.scanned(label, filter, rows);
  if (rows.length > state.listLimit) throw overListLimit(fieldName, state.listLimit);
  state.meter.rows(rows.length, 0);
  return rows;
}

/** A connection page's first/last as asked of the engine: at most one past the budget or, with neither, the list limit. */
function bounded(state: ExecState, first: number | undefined, last: number | undefined): { first: number | undefined; last: number | undefined } {
  const left = state.meter.rowsLeft();
  if (first === undefined && last === undefined) {
    const ask = Math.min(state.listLimit, left);
    return { first: ask < Number.MAX_SAFE_INTEGER ? ask + 1 : undefined, last };
  }
  // With both, the page is the last of the first: cutting `first` would move it.
  if (last === undefined) return { first: first! <= left ? first : left + 1, last };
  if (first === undefined) return { first, last: last <= left ? last : left + 1 };
  return { first, last };
}

/** `<Label>Connection(first, last, after, before, cursor, filters…)`: one page over keyset cursors. */
function* labelConnection(state: ExecState, fieldName: string, label: string, key: string, nodes: readonly FieldNode[]): Work<Shaped> {
  const args = rootArguments(state, fieldName, nodes[0]!);
  const first = optionalInt(args, 'first');
  const last = optionalInt(args, 'last');
  for (const [name, value] of [['first', first], ['last', last]] as const) {
    if (value !== undefined && value < 0) {
      throw new ToolgraphError('TG_BAD_REQUEST', `${fieldName}: ${name} must be a non-negative integer; got ${describeValue(value)}.`);
    }
  }
  const afterCursor = optionalString(args, 'after');
  const cursorArg = optionalString(args, 'cursor');
  if (afterCursor !== undefined && cursorArg !== undefined && afterCursor !== cursorArg) {
    throw new ToolgraphError('TG_BAD_REQUEST', `${fieldName}: cursor is another name for after; give one of them (or both the same).`);
  }
  const resume = afterCursor ?? cursorArg;
  const after = resume === undefined ? undefined : decodeCursor(resume, label, afterCursor !== undefined ? 'after' : 'cursor', state.graphSchema.names.fieldPrefix);
  const beforeCursor = optionalString(args, 'before');
  const before = beforeCursor === undefined ? undefined : decodeCursor(beforeCursor, label, 'before', state.graphSchema.names.fieldPrefix);
  const page = connectionPage(state.view, label, { filter: filtersOf(args), ...bounded(state, first, last), after, before });
  if (first === undefined && last === undefined && page.nodes.length > state.listLimit) throw overListLimit(fieldName, state.listLimit);
  state.meter.rows(page.nodes.length, 0);

  const { connectionType, edgeType } = state.graphSchema.labels.get(label)!.model;
  const out: Shaped = {};
  for (const [ckey, cnodes] of collectFields(state, connectionType, subSelections(nodes))) {
    const name = cnodes[0]!.name.value;
    if (name === '__typename') out[ckey] = connectionType;
    else if (name === 'pageInfo') out[ckey] = pageInfo(state, cnodes, page, label);
    else out[ckey] = yield* pageEdges(state, cnodes, page.nodes, label, edgeType, [key, ckey]);
  }
  return out;
}

function* pageEdges(state: ExecState, nodes: readonly FieldNode[], rows: NodeRecord[], label: string, edgeType: string, path: (string | number)[]): Work<Shaped[]> {
  const fields = collectFields(state, edgeType, subSelections(nodes));
  const columns: { key: string; kind: 'typename' | 'cursor' | 'node'; shaped?: Shaped[] }[] = [];
  for (const [ekey, enodes] of fields) {
    const name = enodes[0]!.name.value;
    if (name === 'node') columns.push({ key: ekey, kind: 'node', shaped: yield* shapeNodes(state, rows, enodes, 0, (i) => [...path, i, ekey]) });
    else columns.push({ key: ekey, kind: name === 'cursor' ? 'cursor' : 'typename' });
  }
  // Each edge's JSON, at least: `{}`, keys, commas, and quotes and text of its values (the node is charged as it is shaped).
  let fixed = 1 + columns.length;
  for (const c of columns) fixed += c.key.length + 3 + (c.kind === 'typename' ? edgeType.length + 2 : c.kind === 'cursor' ? 2 : 0);
  state.meter.bytes(rows.length * fixed + Math.max(0, rows.length - 1));
  const out = new Array<Shaped>(rows.length);
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    const edge: Shaped = {};
    for (const c of columns) {
      if (c.kind === 'node') edge[c.key] = c.shaped![i];
      else if (c.kind === 'typename') edge[c.key] = edgeType;
      else {
        const cursor = encodeCursor(label, rows[i]!.id);
        bytes += cursor.length;
        edge[c.key] = cursor;
      }
    }
    out[i] = edge;
  }
  state.meter.bytes(bytes);
  return out;
}

function pageInfo(state: ExecState, nodes: readonly FieldNode[], page: { nodes: NodeRecord[]; hasNextPage: boolean; hasPreviousPage: boolean }, label: string): Shaped {
  const out: Shaped = {};
  const firstNode = page.nodes[0];
  const lastNode = page.nodes[page.nodes.length - 1];
  for (const [pkey, pnodes] of collectFields(state, 'PageInfo', subSelections(nodes))) {
    switch (pnodes[0]!.name.value) {
      case 'hasNextPage': out[pkey] = page.hasNextPage; break;
      case 'hasPreviousPage': out[pkey] = page.hasPreviousPage; break;
      case 'startCursor': out[pkey] = firstNode === undefined ? null : encodeCursor(label, firstNode.id); break;
      case 'endCursor': out[pkey] = lastNode === undefined ? null : encodeCursor(label, lastNode.id); break;
      default: out[pkey] = 'PageInfo';
    }
  }
  return out;
}

/**
 * `_entities(representations)`: every representation looked up in one pass, answered in request
 * order, null where no node of that label has the id; the found nodes are shaped together.
 */
function* entities(state: ExecState, key: string, nodes: readonly FieldNode[]): Work<(Shaped | null)[]> {
  const args = rootArguments(state, '_entities', nodes[0]!);
  const representations = args['representations'] as unknown[];
  // Pricing capped how many there are (TOOLGRAPH_GRAPHQL_MAX_REPRESENTATIONS); each answer is at least `null` or `{}` and a comma.
  state.meter.bytes(representations.length);
  const out = new Array<Shaped | null>(representations.length).fill(null);
  const found: NodeRecord[] = [];
  const at: number[] = [];
  for (let i = 0; i < representations.length; i++) {
    if ((i & 1023) === 1023) state.meter.tick(1024);
    const rep = representations[i];
    const typename = typeof rep === 'object' && rep !== null ? (rep as Record<string, unknown>)['__typename'] : undefined;
    const id = typeof rep === 'object' && rep !== null ? (rep as Record<string, unknown>)['id'] : undefined;
    // __typename names a label's type: the label itself, or with a namespace its prefixed name.
    const label = typeof typename === 'string' ? state.graphSchema.labelOfType.get(typename) : undefined;
    if (label === undefined || typeof id !== 'string') {
      state.errors.push(graphqlError('TG_BAD_REQUEST',
        `_entities: representation ${i} must be an object with __typename (a label: ${[...state.graphSchema.labelOfType.keys()].join(', ')}) and a string id; got ${describeValue(rep)}${typeof typename === 'string' ? ` with __typename ${describeValue(typename)}` : ''}.`,
        { nodes, path: [key, i] }));
      continue;
    }
    const node = state.view.node(id);
    if (node === undefined || node.label !== label) continue;
    found.push(node);
    at.push(i);
  }
  state.meter.rows(found.length, 0);
  try {
    const shaped = yield* shapeNodes(state, found, nodes, 0, (j) => [key, at[j]!]);
    for (let j = 0; j < shaped.length; j++) out[at[j]!] = shaped[j]!;
  } catch (error) {
    // Entities are nullable: a failing selection nulls the entities it covers, not the whole data.
    if (!(error instanceof NullBubble)) throw error;
    state.errors.push(error.error);
  }
  return out;
}

function service(state: ExecState, nodes: readonly FieldNode[]): Shaped {
  const out: Shaped = {};
  for (const [skey, snodes] of collectFields(state, '_Service', subSelections(nodes))) {
    out[skey] = snodes[0]!.name.value === 'sdl' ? state.graphSchema.sdl : '_Service';
  }
  return out;
}

/**
 * The work of one Query root field (introspection fields excepted: graphql-js answers those). The
 * field's own work, handed back: a failure while preparing it throws here, one while running it
 * throws from the work; the caller bubbles either (see `bubble`).
 */
function rootWork(state: ExecState, key: string, nodes: readonly FieldNode[]): Work<unknown> {
  const name = nodes[0]!.name.value;
  if (name === '__typename') return doneWork('Query');
  const root = state.graphSchema.roots.get(name);
  // Only root lists say what they read (a subscription's roots are lists); anything else reads more than the recorder knows.
  if (state.reads !== null && root?.kind !== 'list') state.reads.unbounded = true;
  switch (root?.kind) {
    case 'list': return labelList(state, name, root.label, key, nodes);
    case 'connection': return labelConnection(state, name, root.label, key, nodes);
    case 'entities': return entities(state, key, nodes);
    case 'service': return doneWork(service(state, nodes));
    default: throw new ToolgraphError('TG_INTERNAL', `No executor for Query.${name}.`);
  }
}

/** The value of one Query root field, run to its end without pausing (graphql-js resolvers, subscriptions). */
export function queryRootValue(state: ExecState, key: string, nodes: readonly FieldNode[]): unknown {
  try {
    return finish(rootWork(state, key, nodes));
  } catch (error) {
    bubble(error, nodes, [key]);
  }
}

function* queryFields(state: ExecState, fields: CollectedFields): Work<Record<string, unknown> | null> {
  const data: Record<string, unknown> = {};
  try {
    for (const [key, nodes] of fields) {
      try {
        data[key] = yield* rootWork(state, key, nodes);
      } catch (error) {
        bubble(error, nodes, [key]);
      }
    }
  } catch (error) {
    if (!(error instanceof NullBubble)) throw error;
    state.errors.push(error.error);
    return null;
  }
  return data;
}

/**
 * Executes a query's root fields in order. Every root field is non-null, so the first failure
 * makes `data` null (as graphql-js does, it stops there). Synchronous unless the request ran past
 * a time slice: it then pauses at safe points (work.ts) and answers a promise.
 */
export function executeQueryFields(state: ExecState, fields: CollectedFields): Record<string, unknown> | null | Promise<Record<string, unknown> | null> {
  return drive(queryFields(state, fields), state.meter);
}
