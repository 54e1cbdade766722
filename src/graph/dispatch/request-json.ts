import { ToolgraphError } from '../../errors/index.ts';

/**
 * Deepest nesting of arrays and objects a request body may have. The NativeRequest itself takes 4
 * levels and Cypher refuses parameters nested deeper than 64, so 100 leaves room and stops a
 * hostile body long before anything recursive (a JSON.parse reviver, a validator) sees it.
 */
export const MAX_JSON_DEPTH = 100;

export interface ParsedRequestJson {
  readonly value: unknown;
  /**
   * The exact source text of every number found under a key named `id`, by the object holding it,
   * so a top-level id keeps its digits and its notation (`1.0` and `1e3` are not ids).
   */
  readonly idSources: WeakMap<object, string>;
}

/** Where the text first nests deeper than `limit`, or -1. Strings are skipped; no recursion. */
export function depthExceededAt(text: string, limit: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > limit) return i;
    } else if (c === 93 || c === 125) depth--;
  }
  return -1;
}

// A number that is not a short plain integer: a fraction, an exponent, or 16+ digits (2^53 has 16).
const NEEDS_SOURCE = /\d{16}|\d\.\d|\d[eE]/;
const INTEGER_LITERAL = /^-?\d+$/;

/**
 * Parses a JSON request body without losing what doubles lose. Integers written beyond
 * ±(2^53−1) come back as bigint (never silently rounded: whoever reads them refuses or keeps them
 * exactly), and the source of numbers under `id` is kept. Nesting deeper than MAX_JSON_DEPTH is
 * refused before parsing. Bodies with only short plain integers, the common case, skip the reviver.
 */
export function parseRequestJson(text: string, what = 'The body'): ParsedRequestJson {
  const tooDeep = depthExceededAt(text, MAX_JSON_DEPTH);
  if (tooDeep !== -1) {
    throw new ToolgraphError('TG_REQUEST_INVALID', `${what} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (at character ${tooDeep + 1}); at most ${MAX_JSON_DEPTH} are accepted.`, {
      details: { limit: MAX_JSON_DEPTH, offset: tooDeep },
    });
  }
  const idSources = new WeakMap<object, string>();
  try {
    if (!NEEDS_SOURCE.test(text)) return { value: JSON.parse(text) as unknown, idSources };
    const value = JSON.parse(text, function (this: object, key: string, parsed: unknown, context?: { source?: string }) {
      if (typeof parsed !== 'number' || context?.source === undefined) return parsed;
      if (key === 'id') idSources.set(this, context.source);
      if (!Number.isSafeInteger(parsed) && INTEGER_LITERAL.test(context.source)) return BigInt(context.source);
      return parsed;
    }) as unknown;
    return { value, idSources };
  } catch (error) {
    throw new ToolgraphError('TG_REQUEST_INVALID', `${what} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}
