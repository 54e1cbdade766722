import {
  GraphQLError, Kind, getNamedType, isInterfaceType, isObjectType,
  type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType,
  type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { SETTINGS } from '../../config/index.ts';
import { overLimit } from './use-limits.ts';

/** What pricing reads of the settings (GraphqlLimits has them all). */
export interface PricingLimits {
  readonly maxCost: number;
  readonly defaultPage: number;
  readonly listLimit: number;
  readonly maxRepresentations: number;
}

/** graphql-armor's cost-limit weights, so a document with literal pages costs here what it costs there. */
const OBJECT_COST = 2;
const SCALAR_COST = 1;
const DEPTH_FACTOR = 1.5;

const COST_HINT = ` Every list is priced at its page: first/limit/last as sent (variables too), ${SETTINGS.graphqlListLimit.env!} for a root list without one, ${SETTINGS.graphqlDefaultPage.env!} per parent for an edge field without one, one per _entities representation; ask for smaller pages.`;

type Fields = Readonly<Record<string, GraphQLField<unknown, unknown>>>;

function fieldsOf(type: GraphQLNamedType | null | undefined): Fields | undefined {
  return type !== null && type !== undefined && (isObjectType(type) || isInterfaceType(type)) ? type.getFields() : undefined;
}

/** One pricing of one operation with its coerced variables. */
class Walk {
  readonly #schema: GraphQLSchema;
  readonly #root: GraphQLNamedType | null | undefined;
  readonly #fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly #variables: Readonly<Record<string, unknown>>;
  readonly #limits: PricingLimits;
  /** Fragment costs (a fragment's cost does not depend on where it is spread: its multipliers are inside it). */
  readonly #memo = new Map<string, number>();
  readonly #visiting = new Set<string>();
  /** Whether a page or the representations came from a variable (then the cost is this request's only). */
  readsVariables = false;

  constructor(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>, variables: Readonly<Record<string, unknown>>, limits: PricingLimits) {
    this.#schema = schema;
    this.#root = schema.getRootType(operation.operation);
    this.#fragments = fragments;
    this.#variables = variables;
    this.#limits = limits;
  }

  selections(set: SelectionSetNode, parent: GraphQLNamedType | null | undefined): number {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        cost += this.#field(selection, parent);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition;
        cost += this.selections(selection.selectionSet, condition === undefined ? parent : this.#schema.getType(condition.name.value));
      } else {
        // Every spread counts (a fragment used twice costs twice), computed once: a fragment "bomb" is priced, never expanded.
        const name = selection.name.value;
        const known = this.#memo.get(name);
        if (known !== undefined) {
          cost += known;
          continue;
        }
        const fragment = this.#fragments[name];
        // Cycles are NoFragmentCyclesRule's to refuse; here they only must not loop.
        if (fragment === undefined || this.#visiting.has(name)) continue;
        this.#visiting.add(name);
        const own = this.selections(fragment.selectionSet, this.#schema.getType(fragment.typeCondition.name.value));
        this.#visiting.delete(name);
        this.#memo.set(name, own);
        cost += own;
      }
    }
    return cost;
  }

  #field(node: FieldNode, parent: GraphQLNamedType | null | undefined): number {
    if (node.selectionSet === undefined) return SCALAR_COST;
    const name = node.name.value;
    const root = parent === this.#root;
    // As graphql-armor: introspection is not priced (it reads the schema, not the graph).
    if (root && (name === '__schema' || name === '__type')) return 0;
    const definition = fieldsOf(parent)?.[name];
    const below = this.selections(node.selectionSet, definition === undefined ? undefined : getNamedType(definition.type));
    return (OBJECT_COST + DEPTH_FACTOR * below) * this.#multiplier(node, definition, root);
  }

  /** How many objects a field may return: its page, the default for a list without one, or its representations. */
  #multiplier(node: FieldNode, definition: GraphQLField<unknown, unknown> | undefined, root: boolean): number {
    if (definition === undefined) return 1;
    if (root && node.name.value === '_entities') return this.#representations(node);
    let paged = false;
    let page: number | undefined;
    for (const arg of definition.args) {
      const argName = arg.name;
      if (argName !== 'first' && argName !== 'limit' && argName !== 'last') continue;
      paged = true;
      const value = this.#int(node, argName);
      if (value !== undefined && (page === undefined || value < page)) page = value;
    }
    if (!paged) return 1;
    // A negative page is the executor's error; it reads nothing.
    if (page !== undefined) page = Math.max(0, page);
    // A root list or connection filtered by id holds one node at most.
    if (root && this.#given(node, 'id')) return page === undefined ? 1 : Math.min(page, 1);
    return page ?? (root ? this.#limits.listLimit : this.#limits.defaultPage);
  }

  /** Whether an argument is given a non-null value (literal, or a variable with one). */
  #given(node: FieldNode, name: string): boolean {
    const arg = node.arguments?.find((a) => a.name.value === name);
    if (arg === undefined || arg.value.kind === Kind.NULL) return false;
    if (arg.value.kind !== Kind.VARIABLE) return true;
    this.readsVariables = true;
    const coerced = this.#variables[arg.value.name.value];
    return coerced !== undefined && coerced !== null;
  }

  #int(node: FieldNode, name: string): number | undefined {
    const arg = node.arguments?.find((a) => a.name.value === name);
    if (arg === undefined) return undefined;
    const value = arg.value;
    if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
    if (value.kind !== Kind.VARIABLE) return undefined;
    this.readsVariables = true;
    const coerced = this.#variables[value.name.value];
    return typeof coerced === 'number' ? coerced : undefined;
  }

  #representations(node: FieldNode): number {
    const arg = node.arguments?.find((a) => a.name.value === 'representations');
    let count = 0;
    if (arg?.value.kind === Kind.LIST) {
      count = arg.value.values.length;
    } else if (arg?.value.kind === Kind.VARIABLE) {
      this.readsVariables = true;
      const coerced = this.#variables[arg.value.name.value];
      count = Array.isArray(coerced) ? coerced.length : 1;
    }
    if (count > this.#limits.maxRepresentations) throw overLimit('representations', this.#limits.maxRepresentations, count);
    return count;
  }
}

/** Where an operation's root `_entities` fields take their representations: a variable's name, or a literal list's length. */
type RepresentationSource = string | number;

function representationSources(operation: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>): RepresentationSource[] {
  const sources: RepresentationSource[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments[selection.name.value];
        if (fragment !== undefined && !seen.has(selection.name.value)) {
          seen.add(selection.name.value);
          walk(fragment.selectionSet);
        }
      } else if (selection.name.value === '_entities') {
        const value = selection.arguments?.find((a) => a.name.value === 'representations')?.value;
        if (value?.kind === Kind.VARIABLE) sources.push(value.name.value);
        else if (value?.kind === Kind.LIST) sources.push(value.values.length);
      }
    }
  };
  walk(operation.selectionSet);
  return sources;
}

/**
 * Cost analysis after variable coercion, before anything is read: graphql-armor's cost formula
 * (object 2, scalar 1, each level ×1.5, fragments counted where they are spread) with every list
 * multiplied by what it may return as this request sends it: `first`/`limit`/`last` (the smallest
 * given, literal or variable), a root list or connection without one at the list limit, an edge
 * field without one at the default page, `_entities` by its representations (capped first). So
 * `first: $n` and a missing `first` cannot dodge it. It replaces graphql-armor's cost rule, which
 * sees literal pages only (a document whose pages are all literal costs the same in both, save
 * that armor counts fragments as extra levels). An operation that reads no variable is priced
 * once per schema.
 */
export class OperationPricing {
  readonly #limits: PricingLimits;
  readonly #known = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, number>>();
  readonly #sources = new WeakMap<OperationDefinitionNode, RepresentationSource[]>();

  constructor(limits: PricingLimits) {
    this.#limits = limits;
  }

  /** The operation's cost; throws the representations refusal (a GraphQLError) first. */
  cost(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>, variables: Readonly<Record<string, unknown>>): number {
    let bySchema = this.#known.get(schema);
    const known = bySchema?.get(operation);
    if (known !== undefined) return known;
    const walk = new Walk(schema, operation, fragments, variables, this.#limits);
    const cost = walk.selections(operation.selectionSet, schema.getRootType(operation.operation));
    if (!walk.readsVariables) {
      if (bySchema === undefined) this.#known.set(schema, (bySchema = new WeakMap()));
      bySchema.set(operation, cost);
    }
    return cost;
  }

  /**
   * The representations cap on the variables as sent, before they are coerced (coercing 28,000
   * representations is itself tens of milliseconds of work): null when no root `_entities` field
   * takes more than the cap. The priced check after coercion still applies.
   */
  representationsRefusal(operation: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>, raw: Readonly<Record<string, unknown>>): GraphQLError | null {
    let sources = this.#sources.get(operation);
    if (sources === undefined) this.#sources.set(operation, (sources = representationSources(operation, fragments)));
    const max = this.#limits.maxRepresentations;
    for (const source of sources) {
      const value = typeof source === 'number' ? undefined : raw[source];
      const count = typeof source === 'number' ? source : Array.isArray(value) ? value.length : 0;
      if (count > max) return overLimit('representations', max, count);
    }
    return null;
  }

  /** The refusal of an operation over the cost limit or the representations cap; null when it may run. */
  refusal(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>, variables: Readonly<Record<string, unknown>>): GraphQLError | null {
    let cost: number;
    try {
      cost = this.cost(schema, operation, fragments, variables);
    } catch (error) {
      if (error instanceof GraphQLError) return error;
      throw error;
    }
    if (cost <= this.#limits.maxCost) return null;
    return overLimit('cost', this.#limits.maxCost, Math.min(Math.ceil(cost), Number.MAX_SAFE_INTEGER), COST_HINT);
  }
}
