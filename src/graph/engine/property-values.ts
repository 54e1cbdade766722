/// <reference lib="es2024.string" />
import { ToolgraphError, describeValue } from '../../errors/index.ts';

import type { PropertyType, PropertyValue } from './types.ts';

/** What a written value is: a typed value, `null` (unset) or an empty list (typed by its property). */
export type ValueKind = PropertyType | 'null' | 'emptyList';

function invalid(where: string, expected: string, value: unknown): ToolgraphError {
  return new ToolgraphError('TG_VALUE_INVALID', `${where}: expected ${expected}; got ${describeValue(value)}.`);
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

/** The first lone surrogate of an ill-formed string, as "U+D800 at index 3". */
function loneSurrogate(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const u = value.charCodeAt(i);
    if (u < 0xd800 || u > 0xdfff) continue;
    const next = value.charCodeAt(i + 1);
    if (u <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return `U+${u.toString(16).toUpperCase()} at index ${i}`;
  }
  return 'none';
}

/**
 * Strings must be well-formed Unicode: a lone surrogate (from a `\uD800` escape) is no character,
 * cannot be encoded as UTF-8 and would poison every read that serialises it.
 */
function checkText(value: string, where: string): void {
  if (!value.isWellFormed()) {
    throw new ToolgraphError('TG_VALUE_INVALID',
      `${where}: expected well-formed Unicode text; got a string with a lone surrogate (${loneSurrogate(value)}), which is no character: ${describeValue(value)}.`);
  }
}

/** Classifies a written property value; throws TG_VALUE_INVALID for anything the model does not hold. */
export function kindOf(value: unknown, where: string): ValueKind {
  switch (typeof value) {
    case 'string':
      checkText(value, where);
      return 'String';
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
          throw invalid(`${where}[${i}]`, `a list whose items are all strings, all numbers or all booleans, never null or nested (item 0 is ${describeValue(first)})`, item);
        }
        if (itemType === 'number' && numberKind(item as number, `${where}[${i}]`) === 'Float') sawFloat = true;
        else if (itemType === 'string') checkText(item as string, `${where}[${i}]`);
      }
      if (itemType === 'string') return '[String]';
      if (itemType === 'boolean') return '[Boolean]';
      return sawFloat ? '[Float]' : '[Int]';
    }
    default:
      throw invalid(where, SCALARS, value);
  }
}

/** Whether a value of `kind` may be stored in a property of `declared` type as it is (Int fits Float). */
export function fits(declared: PropertyType, kind: ValueKind): boolean {
  if (kind === 'null' || kind === declared) return true;
  if (kind === 'emptyList') return declared.startsWith('[');
  return (declared === 'Float' && kind === 'Int') || (declared === '[Float]' && kind === '[Int]');
}

/**
 * The type a property of `declared` type has once a value of `kind` is stored: the same type when the
 * value fits; Float when a non-integral number comes to an Int property ([Float] for [Int]), because
 * a first value of `0` says nothing about the next one being `0.29`; undefined when it does not fit.
 */
export function typeAfter(declared: PropertyType, kind: ValueKind): PropertyType | undefined {
  if (fits(declared, kind)) return declared;
  if (declared === 'Int' && kind === 'Float') return 'Float';
  if (declared === '[Int]' && kind === '[Float]') return '[Float]';
  return undefined;
}

/**
 * The value with every lone surrogate replaced by U+FFFD (as `String#toWellFormed` does); the same
 * value when nothing needed it. Only for data stored before ill-formed strings were refused.
 */
export function wellFormedValue(value: PropertyValue): PropertyValue {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
  if (!Array.isArray(value) || value.every((v) => typeof v !== 'string' || v.isWellFormed())) return value;
  return value.map((v) => (typeof v === 'string' ? v.toWellFormed() : v));
}
