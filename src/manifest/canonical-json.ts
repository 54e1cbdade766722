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

/**
 * RFC 8785 serialisation of a value that came from `JSON.parse`, byte-identical to `canonicalJson`
 * (a property test holds them together) and several times faster on large documents. JCS was designed
 * so that ECMAScript's JSON.stringify writes strings and numbers exactly as it prescribes; what
 * remains is key order and lone surrogates. One walk checks both: when every object's keys are
 * already in code-unit order (as in a parsed canonical document) the native JSON.stringify is the
 * canonical form; otherwise the canonicalize package sorts.
 */
export function canonicalJsonOfParsed(value: unknown): string {
  return isCanonicalOrder(value) ? JSON.stringify(value) : canonicalJson(value);
}

/** True when every object's keys are sorted by UTF-16 code units and no string has a lone surrogate. */
function isCanonicalOrder(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return false;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      let previous: string | undefined;
      for (const key in record) {
        if (previous !== undefined && previous > key) return false;
        if (!isWellFormed(key)) return false;
        previous = key;
        stack.push(record[key]);
      }
    } else if (typeof value !== 'boolean' && value !== null) {
      return false;
    }
  }
  return true;
}

/** `String.prototype.isWellFormed` (Node 20+, typed only from lib ES2024): false when a lone surrogate is present. */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}
