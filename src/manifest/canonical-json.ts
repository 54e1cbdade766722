import canonicalize from 'canonicalize';

/** A JSON value as JCS can serialise it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * RFC 8785 (JCS) serialisation: keys in UTF-16 code-unit order, ECMAScript number form, no
 * whitespace. Throws for values JSON cannot carry (NaN, Infinity, lone surrogates, undefined).
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form (undefined, a function or a symbol).');
  return text;
}
