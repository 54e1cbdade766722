import { ToolgraphError, describeValue } from '../../errors/index.ts';

/**
 * A graph's federation namespace: the opt-in prefix that lets any set of graphs compose into one
 * supergraph. With namespace `crm`, every name the graph defines takes a prefix: types `Crm_`
 * (`Crm_Person`, `Crm_PersonConnection`, `Crm_AuthoredTarget`, `Crm_Node`), root and mutation fields
 * `crm_` (`crm_Person`, `crm_PersonConnection`, `crm_createNode`). The types every graph defines
 * alike (`PageInfo`, `EdgeResult`, `DeleteResult`, `JSON`) are `@shareable` and stay as they are.
 *
 * Lowercase letters and digits only: the field prefix is the namespace itself and the type prefix
 * its capitalised form, so two namespaces never share a prefix, and `_` never appears inside one, so
 * the first `_` of a prefixed name ends the namespace (`crm_a_B` can only be namespace `crm`).
 */
const NAMESPACE_PATTERN = /^[a-z][a-z0-9]*$/;
const MAX_NAMESPACE_LENGTH = 32;

/** The names a namespace gives (all empty prefixes and the plain names without one). */
export interface NamespaceNames {
  readonly namespace: string | null;
  /** Before every type the graph defines: `Crm_`, or ''. */
  readonly typePrefix: string;
  /** Before every Query, Mutation and Subscription field: `crm_`, or ''. */
  readonly fieldPrefix: string;
  /** The interface every label type implements: `Crm_Node`, or `Node`. */
  readonly nodeType: string;
}

const PLAIN: NamespaceNames = Object.freeze({ namespace: null, typePrefix: '', fieldPrefix: '', nodeType: 'Node' });
const known = new Map<string, NamespaceNames>();

export function namespaceNames(namespace: string | null | undefined): NamespaceNames {
  if (namespace === null || namespace === undefined) return PLAIN;
  let names = known.get(namespace);
  if (names === undefined) {
    const typePrefix = `${namespace.charAt(0).toUpperCase()}${namespace.slice(1)}_`;
    names = Object.freeze({ namespace, typePrefix, fieldPrefix: `${namespace}_`, nodeType: `${typePrefix}Node` });
    known.set(namespace, names);
  }
  return names;
}

/** A namespace as sent (a string, or null to remove it), checked: TG_NAMESPACE_INVALID says what a namespace is. */
export function checkNamespace(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_NAMESPACE_LENGTH || !NAMESPACE_PATTERN.test(value)) {
    throw new ToolgraphError('TG_NAMESPACE_INVALID',
      `A namespace is 1 to ${MAX_NAMESPACE_LENGTH} lowercase letters and digits starting with a letter (${NAMESPACE_PATTERN.source}), or null for none; got ${describeValue(value)}.`);
  }
  return value;
}
