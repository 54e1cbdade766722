import type { Mutation, MutationInput, Properties, PropertyValue } from './types.ts';

/**
 * Cheap estimates of how long a stored value's JSON text is (UTF-16 code units, as JSON.stringify
 * writes it), known without serialising it: a string counts its length and quotes (escapes and
 * multi-byte UTF-8 aside, so it is a lower bound of the UTF-8 bytes), a number its digits. Budgets
 * charge these before the text or the copy exists.
 */

/** The JSON length of a number: exact for integers, an upper-bound guess of the shortest form for fractions. */
export function numberJsonSize(n: number): number {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) {
    const abs = Math.abs(n);
    let digits = abs < 10 ? 1 : Math.floor(Math.log10(abs)) + 1;
    // log10 rounds up just below a power of ten (log10(999999999999999) is 15).
    if (digits > 1 && 10 ** (digits - 1) > abs) digits--;
    return n < 0 ? digits + 1 : digits;
  }
  // The longest shortest form: a sign, `0.`, five zeros and 17 significant digits
  // (-0.0000015840698908564952); exponent forms such as -1.2345678901234567e-308 are shorter.
  return 25;
}

/** The JSON length of one property value (a scalar or a list of scalars). */
function propertyJsonSize(value: PropertyValue): number {
  switch (typeof value) {
    case 'string': return value.length + 2;
    case 'number': return numberJsonSize(value);
    case 'boolean': return value ? 4 : 5;
  }
  if (value === null) return 4;
  let size = 1;
  for (let i = 0; i < value.length; i++) {
    const item = value[i]!;
    size += 1 + (typeof item === 'string' ? item.length + 2 : typeof item === 'number' ? numberJsonSize(item) : 5);
  }
  return size + (value.length === 0 ? 1 : 0);
}

/** Committed property maps are frozen and replaced, never changed: their size is computed once. */
const frozenSizes = new WeakMap<Properties, number>();

/** The JSON length of a property map `{"k":v,...}`. */
export function propertiesJsonSize(props: Properties): number {
  const frozen = Object.isFrozen(props);
  if (frozen) {
    const known = frozenSizes.get(props);
    if (known !== undefined) return known;
  }
  let size = 1;
  for (const key in props) size += key.length + 4 + propertyJsonSize(props[key]!);
  if (size === 1) size = 2;
  if (frozen) frozenSizes.set(props, size);
  return size;
}

/** The JSON length of a mutation as the log writes it (`{"op":...}`); a createNode without an id counts a UUID's. */
export function mutationJsonSize(m: MutationInput | Mutation): number {
  switch (m.op) {
    case 'createNode':
      return 47 + (m.id?.length ?? 36) + m.label.length + (m.props === undefined ? 2 : propertiesJsonSize(m.props));
    case 'updateNode': {
      let size = 34 + m.id.length + propertiesJsonSize(m.set);
      if (m.unset !== undefined) {
        size += 10;
        for (const key of m.unset) size += key.length + 3;
      }
      return size;
    }
    case 'deleteNode':
      return 27 + m.id.length;
    case 'addEdge':
    case 'removeEdge':
      return 37 + m.op.length + m.src.length + m.tgt.length + m.type.length;
    case 'setAccess':
      return 40;
    case 'setNamespace':
      return 40 + (m.namespace?.length ?? 0);
  }
}

/**
 * What a mutation changes, as a write cap counts it (and as Cypher's `stats` count): one per node
 * created or deleted and per edge added or removed, one per property set or removed (a created node's
 * included; an update of none still counts one). Edges a deleteNode takes with it are not counted:
 * they cost the log nothing.
 */
export function mutationChanges(m: MutationInput | Mutation): number {
  switch (m.op) {
    case 'createNode': {
      let changes = 1;
      if (m.props !== undefined) for (const key in m.props) if (m.props[key] !== null) changes++;
      return changes;
    }
    case 'updateNode': {
      let changes = m.unset?.length ?? 0;
      for (const _key in m.set) changes++;
      return Math.max(1, changes);
    }
    default:
      return 1;
  }
}
