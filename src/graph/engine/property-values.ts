import { ToolgraphError } from '../../errors/index.ts';
import { describe } from './names.ts';
import type { PropertyType } from './types.ts';

/** What a written value is: a typed value, `null` (unset) or an empty list (typed by its property). */
export type ValueKind = PropertyType | 'null' | 'emptyList';

function invalid(where: string, expected: string, value: unknown): ToolgraphError {
  return new ToolgraphError('TG_VALUE_INVALID', `${where}: expected ${expected}; got ${describe(value)}.`);
}

const SCALARS = 'a string, a safe integer, a finite float, a boolean, null, or a non-empty list of one of these kinds';

function numberKind(value: number, where: string): 'Int' | 'Float' {
  if (!Number.isFinite(value)) throw invalid(where, 'a finite number (NaN and Infinity are not values)', value);
  if (Number.isInteger(value)) {
    if (!Number.isSafeInteger(value)) throw invalid(where, `an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`, value);
    return 'Int';
  }
  return 'Float';
}

/** Classifies a written property value; throws TG_VALUE_INVALID for anything the model does not hold. */
export function kindOf(value: unknown, where: string): ValueKind {
  switch (typeof value) {
    case 'string': return 'String';
    case 'boolean': return 'Boolean';
    case 'number': return numberKind(value, where);
    case 'object': {
      if (value === null) return 'null';
      if (!Array.isArray(value)) throw invalid(where, `${SCALARS} (nested objects are not supported)`, value);
      if (value.length === 0) return 'emptyList';
      const first: unknown = value[0];
      const itemType = typeof first;
      let sawFloat = false;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item !== itemType || (itemType !== 'string' && itemType !== 'number' && itemType !== 'boolean')) {
          throw invalid(`${where}[${i}]`, `a list whose items are all strings, all numbers or all booleans, never null or nested (item 0 is ${describe(first)})`, item);
        }
        if (itemType === 'number' && numberKind(item as number, `${where}[${i}]`) === 'Float') sawFloat = true;
      }
      if (itemType === 'string') return '[String]';
      if (itemType === 'boolean') return '[Boolean]';
      return sawFloat ? '[Float]' : '[Int]';
    }
    default:
      throw invalid(where, SCALARS, value);
  }
}

/** Whether a value of `kind` may be stored in a property of `declared` type (Int widens to Float). */
export function fits(declared: PropertyType, kind: ValueKind): boolean {
  if (kind === 'null' || kind === declared) return true;
  if (kind === 'emptyList') return declared.startsWith('[');
  return (declared === 'Float' && kind === 'Int') || (declared === '[Float]' && kind === '[Int]');
}
