import {
  GraphQLIncludeDirective, GraphQLSkipDirective, Kind, getDirectiveValues, isAbstractType,
  type FieldNode, type FragmentSpreadNode, type InlineFragmentNode, type SelectionSetNode,
} from 'graphql';
import type { ExecState } from './exec-state.ts';

/** What collecting fields reads: the schema, the variables and the document's fragments. */
export type CollectState = Pick<ExecState, 'graphSchema' | 'variables' | 'fragments'>;

/** Response key → the field nodes merged under it, in the order GraphQL's CollectFields gives. */
export type CollectedFields = Map<string, FieldNode[]>;

function included(state: CollectState, node: FieldNode | FragmentSpreadNode | InlineFragmentNode): boolean {
  const directives = node.directives;
  if (directives === undefined || directives.length === 0) return true;
  const skip = getDirectiveValues(GraphQLSkipDirective, node, state.variables as Record<string, unknown>);
  if (skip?.['if'] === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, state.variables as Record<string, unknown>);
  return include?.['if'] !== false;
}

/**
 * Whether a fragment's type condition applies to an object of type `typeName`: the same type, or
 * an abstract type (union, the `Node` interface, `_Entity`) it belongs to. A label created after the
 * document was validated is unknown to the schema but still implements `Node`.
 */
function applies(state: CollectState, condition: string, typeName: string): boolean {
  if (condition === typeName) return true;
  const schema = state.graphSchema.schema;
  const abstract = schema.getType(condition);
  if (abstract === undefined || abstract === null || !isAbstractType(abstract)) return false;
  const object = schema.getType(typeName);
  if (object === undefined || object === null) return condition === state.graphSchema.names.nodeType;
  return schema.isSubType(abstract, object as never);
}

interface CachedCollection {
  readonly sets: readonly (SelectionSetNode | undefined)[];
  readonly fields: CollectedFields;
}

/**
 * Collections that used no directive depend only on the schema, the document and the type, so a
 * prepared document's repeats reuse them (schema → first selection set → type → collections).
 */
const cache = new WeakMap<object, WeakMap<SelectionSetNode, Map<string, CachedCollection[]>>>();

function sameSets(a: readonly (SelectionSetNode | undefined)[], b: readonly (SelectionSetNode | undefined)[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * GraphQL's CollectFields (spec §6.3.2) for one object type over the selection sets of every
 * field node merged under one response key: aliases, `@skip`/`@include` with variables, named and
 * inline fragments with type conditions. Each named fragment is expanded once per call.
 */
export function collectFields(state: CollectState, typeName: string, selectionSets: readonly (SelectionSetNode | undefined)[]): CollectedFields {
  const first = selectionSets[0];
  const schema = state.graphSchema.schema;
  let byType: Map<string, CachedCollection[]> | undefined;
  if (first !== undefined) {
    let bySet = cache.get(schema);
    if (bySet === undefined) {
      bySet = new WeakMap();
      cache.set(schema, bySet);
    }
    byType = bySet.get(first);
    if (byType === undefined) {
      byType = new Map();
      bySet.set(first, byType);
    }
    const hit = byType.get(typeName)?.find((c) => sameSets(c.sets, selectionSets));
    if (hit !== undefined) return hit.fields;
  }
  const { fields, directives } = collect(state, typeName, selectionSets);
  if (byType !== undefined && !directives) {
    const list = byType.get(typeName);
    const entry = { sets: [...selectionSets], fields };
    if (list === undefined) byType.set(typeName, [entry]);
    else if (list.length < 8) list.push(entry);
  }
  return fields;
}

function collect(state: CollectState, typeName: string, selectionSets: readonly (SelectionSetNode | undefined)[]): { fields: CollectedFields; directives: boolean } {
  const out: CollectedFields = new Map();
  const visited = new Set<string>();
  let directives = false;
  const walk = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.directives !== undefined && selection.directives.length > 0) directives = true;
      switch (selection.kind) {
        case Kind.FIELD: {
          if (!included(state, selection)) break;
          const key = selection.alias?.value ?? selection.name.value;
          const list = out.get(key);
          if (list) list.push(selection);
          else out.set(key, [selection]);
          break;
        }
        case Kind.INLINE_FRAGMENT: {
          if (!included(state, selection)) break;
          const condition = selection.typeCondition?.name.value;
          if (condition !== undefined && !applies(state, condition, typeName)) break;
          walk(selection.selectionSet);
          break;
        }
        case Kind.FRAGMENT_SPREAD: {
          const name = selection.name.value;
          if (visited.has(name) || !included(state, selection)) break;
          visited.add(name);
          const fragment = state.fragments[name];
          if (fragment === undefined || !applies(state, fragment.typeCondition.name.value, typeName)) break;
          walk(fragment.selectionSet);
          break;
        }
      }
    }
  };
  for (const set of selectionSets) if (set !== undefined) walk(set);
  return { fields: out, directives };
}

/** The selection sets of the field nodes merged under one response key. */
export function subSelections(nodes: readonly FieldNode[]): (SelectionSetNode | undefined)[] {
  return nodes.map((n) => n.selectionSet);
}
