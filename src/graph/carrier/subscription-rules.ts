import {
  GraphQLError, Kind, parse, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode,
  type SelectionSetNode, type ValueNode,
} from 'graphql';
import { SETTINGS } from '../../config/index.ts';
import { ToolgraphError } from '../../errors/index.ts';

/** Spec, Limits: every subscription root has an explicit `first` or `limit` of at most 100. */
const MAX_ROOT_LIMIT = 100;
/** Field nesting, the root field being depth 1. */
const MAX_DEPTH = 8;
/** The most result values a subscription may ask for, fan-out included (see `checkSubscriptionRules`). */
export const MAX_COMPLEXITY = 50_000;
/** The setting of the list limit a nested list without `first`/`limit` is priced at. */
const LIST_LIMIT_SETTING = SETTINGS.graphqlListLimit.env!;

/** Field policy: no introspection and no federation entry points over the carrier. */
const FORBIDDEN_FIELDS = new Set(['__schema', '__type', '_service', '_entities']);

export interface SubscriptionShape {
  /** Root field names (aliases resolved away), in document order. */
  readonly roots: readonly string[];
  readonly complexity: number;
  readonly depth: number;
}

function tooComplex(message: string, details?: Record<string, unknown>): ToolgraphError {
  return new ToolgraphError('TG_QUERY_TOO_COMPLEX', message, details === undefined ? {} : { details });
}

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('TG_GRAPHQL_INVALID', message);
}

/** Parses the subscription text (no locations kept: the document lives as long as its subscribers). */
export function parseSubscription(query: string): DocumentNode {
  try {
    return parse(query, { noLocation: true });
  } catch (error) {
    if (error instanceof GraphQLError) throw new ToolgraphError('TG_GRAPHQL_INVALID', `The subscription text does not parse: ${error.message}`);
    throw error;
  }
}

type Bound = { kind: 'none' } | { kind: 'value'; value: number } | { kind: 'invalid'; shown: string };

class Pricing {
  complexity = 0;
  depth = 0;
  readonly roots: string[] = [];
  readonly #fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly #variables: Readonly<Record<string, unknown>>;
  readonly #defaults: ReadonlyMap<string, ValueNode>;
  readonly #active = new Set<string>();
  readonly #listLimit: number;

  constructor(document: DocumentNode, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>> | null, listLimit: number) {
    this.#listLimit = listLimit;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    this.#fragments = fragments;
    this.#variables = variables ?? {};
    const defaults = new Map<string, ValueNode>();
    for (const v of operation.variableDefinitions ?? []) if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
    this.#defaults = defaults;
  }

  /** `first` and `limit` of a field, the smaller when both are given. */
  bound(field: FieldNode): Bound {
    let result: Bound = { kind: 'none' };
    for (const arg of field.arguments ?? []) {
      if (arg.name.value !== 'first' && arg.name.value !== 'limit') continue;
      const value = this.#valueOf(arg.value);
      if (value === undefined || value === null) continue;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        return { kind: 'invalid', shown: `${arg.name.value}: ${JSON.stringify(value) ?? String(value)}` };
      }
      if (result.kind !== 'value' || value < result.value) result = { kind: 'value', value };
    }
    return result;
  }

  #valueOf(node: ValueNode): unknown {
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.NULL) return null;
    if (node.kind === Kind.VARIABLE) {
      const name = node.name.value;
      if (Object.hasOwn(this.#variables, name)) return this.#variables[name];
      const fallback = this.#defaults.get(name);
      return fallback === undefined ? undefined : this.#valueOf(fallback);
    }
    if (node.kind === Kind.FLOAT) return Number(node.value);
    return node.kind === Kind.STRING ? node.value : `a ${node.kind.toLowerCase()}`;
  }

  #charge(amount: number): void {
    this.complexity += Math.max(1, amount);
    if (this.complexity > MAX_COMPLEXITY) {
      throw tooComplex(`The subscription may produce more than ${MAX_COMPLEXITY} result values (each list field multiplies what is under it by its first/limit; one without them by the ${this.#listLimit} items it may return, its list limit ${LIST_LIMIT_SETTING}); select less or give lists a lower first/limit.`, { limit: MAX_COMPLEXITY });
    }
  }

  #fields(set: SelectionSetNode, visit: (field: FieldNode) => void): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) visit(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) this.#fields(selection.selectionSet, visit);
      else {
        const name = selection.name.value;
        const fragment = this.#fragments.get(name);
        // Unknown and cyclic fragments are the validator's to refuse; here they only must not loop.
        if (fragment === undefined || this.#active.has(name)) continue;
        this.#active.add(name);
        this.#fields(fragment.selectionSet, visit);
        this.#active.delete(name);
      }
    }
  }

  root(set: SelectionSetNode): void {
    this.#fields(set, (field) => {
      const name = field.name.value;
      if (name.startsWith('__') || FORBIDDEN_FIELDS.has(name)) {
        throw tooComplex(`Subscription root fields must be node labels; ${name} is not served by the carrier.`, { field: name });
      }
      const bound = this.bound(field);
      if (bound.kind === 'none') {
        throw tooComplex(`The subscription root field ${name} needs an explicit first or limit of at most ${MAX_ROOT_LIMIT}.`, { field: name, limit: MAX_ROOT_LIMIT });
      }
      if (bound.kind === 'invalid' || bound.value > MAX_ROOT_LIMIT) {
        const shown = bound.kind === 'invalid' ? bound.shown : `${bound.value}`;
        throw tooComplex(`The subscription root field ${name} needs first or limit to be an integer from 0 to ${MAX_ROOT_LIMIT}; got ${shown}.`, { field: name, limit: MAX_ROOT_LIMIT });
      }
      this.roots.push(name);
      this.#charge(1);
      this.depth = Math.max(this.depth, 1);
      if (field.selectionSet) this.#nested(field.selectionSet, bound.value, 2);
    });
  }

  #nested(set: SelectionSetNode, multiplicity: number, depth: number): void {
    this.#fields(set, (field) => {
      const name = field.name.value;
      if (FORBIDDEN_FIELDS.has(name)) throw tooComplex(`The field ${name} is not served by the carrier (no introspection or federation fields in subscriptions).`, { field: name });
      if (depth > MAX_DEPTH) throw tooComplex(`The subscription nests fields ${depth} deep; the carrier accepts at most ${MAX_DEPTH}.`, { limit: MAX_DEPTH });
      this.depth = Math.max(this.depth, depth);
      this.#charge(multiplicity);
      if (!field.selectionSet) return;
      const bound = this.bound(field);
      const fanout = bound.kind === 'value' ? bound.value : this.#listLimit;
      this.#nested(field.selectionSet, multiplicity * fanout, depth + 1);
    });
  }
}

/**
 * The carrier's query rules, checked on the document before anything runs: exactly one operation,
 * a subscription; every root field a label with an explicit `first` or `limit` from 0 to 100
 * (a variable counts, read from the signed variables); no introspection or federation fields; field
 * depth at most 8; and a complexity of at most 50,000, where each field costs as many values as it
 * may produce: one per row of its parent list, a list field multiplying what is under it by its
 * `first`/`limit`, or by `listLimit` (TOOLGRAPH_GRAPHQL_LIST_LIMIT) when it has none: the executor
 * returns at most that many items of such a list and refuses more. So the price bounds what an
 * evaluation returns, which the carrier's cap on its work per commit adds up.
 */
export function checkSubscriptionRules(document: DocumentNode, variables: Readonly<Record<string, unknown>> | null, listLimit: number): SubscriptionShape {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw invalid(`The subscription text must hold exactly one operation; it holds ${operations.length}.`);
  const operation = operations[0]!;
  if (operation.operation !== 'subscription') {
    throw invalid(`The carrier serves subscriptions only; got a ${operation.operation} operation (send queries and mutations through the native dispatch).`);
  }
  const pricing = new Pricing(document, operation, variables, listLimit);
  pricing.root(operation.selectionSet);
  return { roots: pricing.roots, complexity: pricing.complexity, depth: pricing.depth };
}
