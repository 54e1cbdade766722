import type { QueryBudget } from '../../budget/index.ts';
import { numberJsonSize, propertiesJsonSize, type NodeRecord, type Properties } from '../../engine/index.ts';
import { CHARS_PER_UNIT_SHIFT, EdgeRef, NodeRef, PathRef, valueKey, type Value, type ValueMap } from './values.ts';

/**
 * Bytes a copy of a list allocates per item (one pointer-sized slot; the items are shared, not copied):
 * what a slice is charged, which a JSON estimate of small integers (two bytes each) would undercount.
 */
export const LIST_SLOT_BYTES = 8;

/** A node's current record (null once deleted); null instead of a function: nodes count as their ids (valueKey's form). */
export type SizeResolve = ((ref: NodeRef) => NodeRecord | null) | null;

/**
 * An estimate of the length of a value's JSON text (UTF-16 code units, as the result writer writes
 * it; escapes aside, a lower bound of its UTF-8 bytes), known without serialising it: a string counts
 * its length, a node its stored properties (computed once per committed property map), a list or map
 * its items. Bounded in cost: it stops counting once past `limit`, so a list of a million items is not
 * walked to learn that it is too big.
 */
export function jsonSizeOf(value: Value, resolve: SizeResolve, limit = Infinity): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'string': return value.length + 2;
    case 'number': return numberJsonSize(value);
    case 'boolean': return value ? 4 : 5;
  }
  if (value instanceof NodeRef) {
    // `N"id"` in a key; `{..., "id":"..."}` in a result.
    if (resolve === null) return value.id.length + 3;
    const record = resolve(value);
    return record === null ? 4 : propertiesJsonSize(record.props) + value.id.length + 8;
  }
  if (value instanceof EdgeRef) {
    const e = value.edge;
    return e.src.length + e.tgt.length + e.type.length + 29;
  }
  if (value instanceof PathRef) return jsonSizeOf(value.alternating(), resolve, limit);
  let size = 1;
  if (Array.isArray(value)) {
    const list = value as readonly Value[];
    for (let i = 0; i < list.length && size <= limit; i++) size += 1 + jsonSizeOf(list[i]!, resolve, limit - size);
    return list.length === 0 ? 2 : size;
  }
  const map = value as ValueMap;
  for (const key in map) {
    size += key.length + 4 + jsonSizeOf(map[key]!, resolve, limit - size);
    if (size > limit) return size;
  }
  return size === 1 ? 2 : size;
}

/**
 * Charges the budget with a value the statement is about to keep or build (a collected item, an item
 * of a pattern comprehension), before it does: refused once the statement's bytes go past
 * TOOLGRAPH_QUERY_MAX_RESULT_BYTES. The estimate stops at what is left of the budget.
 */
export function chargeValue(budget: QueryBudget, value: Value, resolve: SizeResolve): void {
  // Scalars need no walk (and most collected values are scalars).
  const size = typeof value !== 'object' || value === null
    ? jsonSizeOf(value, resolve)
    : jsonSizeOf(value, resolve, budget.limits.maxResultBytes - budget.bytes + 1);
  budget.chargeBytes(size + 1);
}

/**
 * The DISTINCT or grouping key of some values (their `valueKey`s joined), refused before it is built
 * when its estimate alone is over what is left of the budget. Keys a statement keeps (a new group, a
 * value not seen before) are charged by the caller once it knows.
 */
export function budgetedKey(values: readonly Value[], budget: QueryBudget): string {
  const left = budget.limits.maxResultBytes - budget.bytes;
  let size = 0;
  for (let i = 0; i < values.length; i++) {
    size += jsonSizeOf(values[i]!, null, left - size + 1) + 1;
    if (size > left) budget.chargeBytes(size);
  }
  const key = values.length === 1 ? valueKey(values[0]!) : values.map(valueKey).join('\u0000');
  // Building the key was work as long as the key (a DISTINCT over 10,000-element lists is not one unit a row).
  if (key.length >>> CHARS_PER_UNIT_SHIFT > 0) budget.tick(key.length >>> CHARS_PER_UNIT_SHIFT);
  return key;
}

/**
 * Charges the budget with a copy of `map` (or of its keys) about to be made: a stored property map's
 * size is known without a walk (computed once per committed map), another map's is estimated up to
 * what is left of the budget. A node of thousands of properties copied for every row of a cross
 * product is refused before the copies exist.
 */
export function chargeMapCopy(map: ValueMap, keysOnly: boolean, budget: QueryBudget): void {
  let size: number;
  if (keysOnly) {
    size = 2;
    for (const key in map) size += key.length + 3;
  } else size = Object.isFrozen(map) ? propertiesJsonSize(map as Properties) : jsonSizeOf(map, null, budget.limits.maxResultBytes - budget.bytes + 1);
  budget.chargeBytes(size);
}
