import {
  GraphQLError, Kind, getArgumentValues, getVariableValues, parse, validate,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLObjectType, type ValueNode,
} from 'graphql';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { CYPHER_RESERVED_WORDS } from '../cypher/index.ts';
import type { Scalar } from '../engine/index.ts';
import { PAGINATION_ARGS } from '../schema/index.ts';
import { collectFields, subSelections, type CollectState } from './collect-fields.ts';
import { cypherLiteral, cypherName } from './cypher-text.ts';
import { selectOperation } from './execute-operation.ts';
import type { GraphSchema } from './graph-schema.ts';
import { listFieldsOf, noNodeTypeMessage } from './use-graph-validation.ts';

/** One root field of the query as one Cypher statement. */
export interface TranslatedRoot {
  /** The response key (alias or field name) the statement's rows fill. */
  readonly key: string;
  /** The root field: a label's list field (the label, after a namespace's prefix), or `__typename`. */
  readonly field: string;
  readonly cypher: string;
  /** True: the value is the list of the first column of every row; false: the first column of the one row. */
  readonly list: boolean;
}

/** An equality filter of a scan; `value` null means "the node lacks the property" (`IS NULL`). */
export interface PlanFilter {
  readonly property: string;
  readonly value: Scalar | null;
}

/** What the executor does, in the order it does it: one scan per root field, one expansion per edge field and level. */
export type PlanStep =
  | { readonly kind: 'scan'; readonly path: string; readonly level: 0; readonly label: string; readonly filters: readonly PlanFilter[]; readonly limit: number | null }
  | {
    readonly kind: 'expand'; readonly path: string; readonly level: number; readonly from: string; readonly edgeType: string;
    readonly direction: 'out' | 'in'; readonly to: readonly string[]; readonly limitPerParent: number | null;
  };

export interface CypherTranslation {
  /** The operation's name, if it has one. */
  readonly operation: string | null;
  /** One statement per root field, in response order. */
  readonly roots: readonly TranslatedRoot[];
  readonly plan: readonly PlanStep[];
}

export interface TranslateOptions {
  readonly variables?: Readonly<Record<string, unknown>> | null;
  readonly operationName?: string | null;
  /** Whether unknown root fields may list the labels (as the endpoint does with introspection on). Default true. */
  readonly introspection?: boolean;
}

/**
 * A Cypher variable for a node of `label` (or of several labels), distinct from every name in
 * `taken` and never a reserved word (a label `Order` gives `orderNode`, not `order`).
 */
function variableFor(label: string | null, taken: ReadonlySet<string>): string {
  const lowered = label === null ? 'node' : label === label.toUpperCase() ? label.toLowerCase() : label.charAt(0).toLowerCase() + label.slice(1);
  const base = CYPHER_RESERVED_WORDS.has(lowered.toUpperCase()) ? `${lowered}Node` : lowered;
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
  return name;
}

function refuse(message: string): never {
  throw new ToolgraphError('TG_BAD_REQUEST', message);
}

/** `first` and `limit` as the executor reads them (pageSize in shape-nodes.ts): the smaller applies; negative is an error. */
function pageSize(field: string, first: unknown, limit: unknown): number | null {
  for (const [name, value] of [['first', first], ['limit', limit]] as const) {
    if (typeof value === 'number' && value < 0) refuse(`${field}: ${name} must be a non-negative integer; got ${describeValue(value)}.`);
  }
  const f = typeof first === 'number' ? first : null;
  const l = typeof limit === 'number' ? limit : null;
  if (f === null) return l;
  if (l === null) return f;
  return Math.min(f, l);
}

/** An Int argument of an edge field as written (literal or variable), as the executor reads it. */
function intArgument(state: CollectState, node: FieldNode, name: string): number | undefined {
  const arg = node.arguments?.find((a) => a.name.value === name);
  if (arg === undefined) return undefined;
  const value: ValueNode = arg.value;
  if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
  if (value.kind === Kind.VARIABLE) {
    const v = state.variables[value.name.value];
    return typeof v === 'number' ? v : undefined;
  }
  return undefined;
}

class Translator {
  readonly plan: PlanStep[] = [];

  readonly state: CollectState;

  constructor(state: CollectState) {
    this.state = state;
  }

  get schema(): GraphSchema {
    return this.state.graphSchema;
  }

  /** The label's GraphQL type name, as `__typename` answers it (a namespace prefixes it). */
  typeName(label: string): string {
    return `${this.schema.names.typePrefix}${label}`;
  }

  /** `Label(first, limit, filters…)`: `MATCH … RETURN <projection> AS key ORDER BY id LIMIT n`. */
  labelList(fieldName: string, label: string, key: string, nodes: readonly FieldNode[]): TranslatedRoot {
    const queryType = this.schema.schema.getQueryType() as GraphQLObjectType;
    const args = getArgumentValues(queryType.getFields()[fieldName]!, nodes[0]!, this.state.variables as Record<string, unknown>);
    const limit = pageSize(fieldName, args['first'], args['limit']);
    const filters: PlanFilter[] = [];
    for (const name of Object.keys(args)) if (!PAGINATION_ARGS.has(name)) filters.push({ property: name, value: args[name] as Scalar | null });
    this.plan.push({ kind: 'scan', path: key, level: 0, label, filters, limit });

    const v = variableFor(label, new Set());
    const equal = filters.filter((f) => f.value !== null).map((f) => `${cypherName(f.property)}: ${cypherLiteral(f.value)}`);
    const absent = filters.filter((f) => f.value === null).map((f) => `${v}.${cypherName(f.property)} IS NULL`);
    const lines = [`MATCH (${v}:${cypherName(label)}${equal.length > 0 ? ` {${equal.join(', ')}}` : ''})`];
    if (absent.length > 0) lines.push(`WHERE ${absent.join(' AND ')}`);
    lines.push(`RETURN ${this.projection(v, label, cypherLiteral(this.typeName(label)), nodes, key, 0, new Set([v]))} AS ${cypherName(key)}`);
    lines.push(`ORDER BY ${v}.id`);
    if (limit !== null) lines.push(`LIMIT ${limit}`);
    return { key, field: fieldName, cypher: lines.join('\n'), list: true };
  }

  /** `v {…}`: the fields the selection asks of a node of `label`, keyed by response key, in selection order. */
  projection(v: string, label: string, typename: string, nodes: readonly FieldNode[], path: string, level: number, taken: ReadonlySet<string>): string {
    const plan = this.schema.labels.get(label);
    const items: string[] = [];
    for (const [key, fieldNodes] of collectFields(this.state, this.typeName(label), subSelections(nodes))) {
      const name = fieldNodes[0]!.name.value;
      const field = name === '__typename' ? undefined : name === 'id' ? { kind: 'id' as const } : plan?.fields.get(name);
      if (field === undefined) {
        items.push(`${cypherName(key)}: ${typename}`);
      } else if (field.kind === 'id' || field.kind === 'property') {
        const property = field.kind === 'id' ? 'id' : field.name;
        items.push(key === property ? `.${cypherName(property)}` : `${cypherName(key)}: ${v}.${cypherName(property)}`);
      } else {
        items.push(`${cypherName(key)}: ${this.edgeField(v, label, field.edge, fieldNodes, `${path}.${key}`, level, taken)}`);
      }
    }
    return `${v} {${items.join(', ')}}`;
  }

  /** An edge field: a pattern comprehension over the neighbours in id order, sliced to first/limit per parent. */
  edgeField(
    v: string, label: string, edge: { edgeType: string; direction: 'out' | 'in'; labels: readonly string[] },
    nodes: readonly FieldNode[], path: string, level: number, taken: ReadonlySet<string>,
  ): string {
    const first = nodes[0]!;
    const limit = pageSize(first.name.value, intArgument(this.state, first, 'first'), intArgument(this.state, first, 'limit'));
    this.plan.push({ kind: 'expand', path, level: level + 1, from: label, edgeType: edge.edgeType, direction: edge.direction, to: edge.labels, limitPerParent: limit });
    const single = edge.labels.length === 1 ? edge.labels[0]! : null;
    const w = variableFor(single, taken);
    const inner = new Set(taken).add(w);
    const rel = `[:${cypherName(edge.edgeType)}]`;
    const pattern = `(${v})${edge.direction === 'out' ? `-${rel}->` : `<-${rel}-`}(${w}${single === null ? '' : `:${cypherName(single)}`})`;
    let value: string;
    if (single !== null) {
      value = this.projection(w, single, cypherLiteral(this.typeName(single)), nodes, path, level + 1, inner);
    } else {
      // Several labels: each gets its own selection (fragments by type condition), as the executor
      // shapes each label's group; one projection when they agree, else a CASE over the label.
      // A namespace's type names are not labels: each label then answers its own `__typename` literal
      // (the projections differ exactly when `__typename` is selected, and the CASE below takes over).
      const mark = this.plan.length;
      const prefixed = this.schema.names.typePrefix !== '';
      const shared = edge.labels.map((l) => this.projection(w, l, prefixed ? cypherLiteral(this.typeName(l)) : `labels(${w})[0]`, nodes, path, level + 1, inner));
      if (shared.every((text) => text === shared[0])) {
        value = shared[0]!;
      } else {
        this.plan.length = mark;
        const branches = edge.labels.map((l) => `WHEN ${cypherLiteral(l)} THEN ${this.projection(w, l, cypherLiteral(this.typeName(l)), nodes, path, level + 1, inner)}`);
        value = `CASE labels(${w})[0] ${branches.join(' ')} END`;
      }
    }
    return `[${pattern} | ${value}]${limit === null ? '' : `[..${limit}]`}`;
  }
}

function invalid(errors: readonly GraphQLError[], schema: GraphSchema, introspection: boolean): never {
  const roots = listFieldsOf(schema);
  const noNodeType = errors.map((e) => noNodeTypeMessage(e.message, roots, introspection, schema.names.fieldPrefix)).find((m) => m !== null);
  if (noNodeType !== undefined) throw new ToolgraphError('TG_GRAPHQL_NO_NODE_TYPE', noNodeType);
  throw new ToolgraphError('TG_GRAPHQL_INVALID', errors.map((e) => e.message).join(' '));
}

/**
 * Translates a GraphQL query against a graph's schema into the equivalent statements of our Cypher
 * subset, one per root field, and the plan the GraphQL executor follows. Running the statements
 * against the same graph version and putting each statement's rows under its response key
 * (`dataFromCypher`) gives the query's `data`: the same JSON value, so the same bytes once both
 * are canonicalised (RFC 8785; the GraphQL response orders keys by selection, Cypher by code point).
 *
 * Translated: label list roots with first/limit and equality filters (null: `IS NULL`), aliases,
 * named and inline fragments, variables, @skip/@include, `__typename`, nested edge fields in both
 * directions with first/limit per parent, union targets (a CASE over the label when the selections
 * differ). Refused with TG_BAD_REQUEST: mutations, connections, `_entities`, `_service` and
 * introspection, which have no counterpart in the subset. Ints outside GraphQL's 32-bit range come
 * out of Cypher as stored, where GraphQL answers null with a field error.
 */
export function translateToCypher(graphSchema: GraphSchema, query: string | DocumentNode, options: TranslateOptions = {}): CypherTranslation {
  const introspection = options.introspection ?? true;
  let document: DocumentNode;
  try {
    document = typeof query === 'string' ? parse(query) : query;
  } catch (error) {
    throw new ToolgraphError('TG_GRAPHQL_INVALID', (error as Error).message, { cause: error });
  }
  const errors = validate(graphSchema.schema, document);
  if (errors.length > 0) invalid(errors, graphSchema, introspection);
  const operation = selectOperation(document, options.operationName);
  if (operation instanceof GraphQLError) throw new ToolgraphError('TG_GRAPHQL_INVALID', operation.message);
  if (operation.operation !== 'query') refuse(`Only queries translate to Cypher; this is a ${operation.operation}.`);
  const coerced = getVariableValues(graphSchema.schema, operation.variableDefinitions ?? [], { ...(options.variables ?? {}) });
  if (coerced.errors !== undefined) throw new ToolgraphError('TG_GRAPHQL_INVALID', coerced.errors.map((e) => e.message).join(' '));
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null) as Record<string, FragmentDefinitionNode>;
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const translator = new Translator({ graphSchema, variables: coerced.coerced, fragments });

  const roots: TranslatedRoot[] = [];
  for (const [key, nodes] of collectFields(translator.state, 'Query', [operation.selectionSet])) {
    const name = nodes[0]!.name.value;
    const root = graphSchema.roots.get(name);
    if (name === '__typename') roots.push({ key, field: name, cypher: `RETURN 'Query' AS ${cypherName(key)}`, list: false });
    else if (root?.kind === 'list') roots.push(translator.labelList(name, root.label, key, nodes));
    else if (root?.kind === 'connection') refuse(`${name}: connections (cursor pages) have no translation to the Cypher subset; ask ${graphSchema.names.fieldPrefix}${root.label}(first: …) instead.`);
    else refuse(`${name} has no translation to the Cypher subset: only label fields (and __typename) translate.`);
  }
  return { operation: operation.name?.value ?? null, roots, plan: translator.plan };
}

/** The query's `data` from the results of the translated statements, run in order on one graph version. */
export function dataFromCypher(translation: CypherTranslation, results: readonly { readonly rows: readonly (readonly unknown[])[] }[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  translation.roots.forEach((root, i) => {
    const rows = results[i]!.rows;
    data[root.key] = root.list ? rows.map((r) => r[0]) : rows[0]?.[0] ?? null;
  });
  return data;
}
