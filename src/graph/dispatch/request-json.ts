import { notJsonError } from '../../errors/index.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../validation/index.ts';

export interface ParsedRequestJson {
  readonly value: unknown;
  /**
   * The exact source text of numbers under a key named `id`, by the object holding it: always that
   * of the top-level object's `id` (so it keeps its digits and its notation: `1.0` and `1e3` are not
   * ids); nested objects' only when the body needed the lossless pass.
   */
  readonly idSources: WeakMap<object, string>;
}

/** What one pass over a body's text finds before it is parsed. */
interface BodyScan {
  /** Where the text first nests deeper than the limit, or -1. */
  readonly tooDeepAt: number;
  /** True when some number other than the top-level `id` may lose digits as a double (an integer of 16+ characters). */
  readonly lossy: boolean;
  /** The source text of the number under the top-level object's last `id` key, when there is one. */
  readonly idSource: string | undefined;
}

function hasBackslash(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === 92) return true;
  return false;
}

/**
 * One pass over the text, without recursion: nesting depth (as validation's jsonTooDeepAt counts it,
 * fused here with the rest so the hot path reads the text once), integers that doubles may round, and the
 * top-level `id` number's source text. Strings are skipped whole (to their closing quote). The text
 * need not be valid JSON: JSON.parse decides that afterwards, and for valid JSON the answers are exact.
 */
function scanBody(text: string, limit: number): BodyScan {
  const n = text.length;
  let depth = 0;
  // The last string closed at depth 1 (a key when a colon follows it), as [start, end) of its contents.
  let keyStart = 0;
  let keyEnd = 0;
  let afterIdKey = false;
  let idSource: string | undefined;
  let lossy = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: its closing quote is the next one not escaped by an odd run of backslashes.
      let j = i + 1;
      for (;;) {
        j = text.indexOf('"', j);
        if (j === -1) return { tooDeepAt: -1, lossy, idSource };
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j++;
      }
      if (depth === 1) {
        keyStart = i + 1;
        keyEnd = j;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return { tooDeepAt: i, lossy, idSource };
    } else if (c === 125 || c === 93) {
      depth--;
    } else if (c === 58) {
      if (depth === 1) {
        afterIdKey = keyEnd - keyStart === 2 && text.charCodeAt(keyStart) === 105 && text.charCodeAt(keyStart + 1) === 100;
        // The last `id` key wins (as in JSON.parse): its value is a number only if one follows.
        if (afterIdKey) idSource = undefined;
        // A key with escapes may spell `id` (`"\\u0069d"`): such a body goes through the lossless pass.
        if (!afterIdKey && hasBackslash(text, keyStart, keyEnd)) lossy = true;
      }
    } else if (c === 44) {
      if (depth === 1) afterIdKey = false;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      // A number: digits, sign, fraction and exponent characters.
      let j = i + 1;
      let integer = true;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d >= 48 && d <= 57) continue;
        if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) integer = false;
        else break;
      }
      if (depth === 1 && afterIdKey) idSource = text.slice(i, j);
      // 15 digits are always exact; 16 or more may not be (2^53 has 16).
      else if (integer && j - i >= 16) lossy = true;
      afterIdKey = false;
      i = j - 1;
    }
  }
  return { tooDeepAt: -1, lossy, idSource };
}

const INTEGER_LITERAL = /^-?\d+$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a JSON request body without losing what doubles lose. Integers written beyond
 * ±(2^53−1) come back as bigint (never silently rounded: whoever reads them refuses or keeps them
 * exactly), and the source of the top-level `id` number is kept. Nesting deeper than MAX_JSON_DEPTH
 * is refused before parsing. One scan of the text finds what needs care: when nothing but the
 * top-level `id` might lose digits (the common case, even with a 20-digit u64 id) a plain JSON.parse
 * does, and only the id is fixed up; otherwise a reviver reads every number's source. Text that is
 * not JSON is 400 TG_BAD_REQUEST (notJsonError), as on every route.
 */
export function parseRequestJson(text: string, what = 'The body'): ParsedRequestJson {
  const scan = scanBody(text, MAX_JSON_DEPTH);
  if (scan.tooDeepAt !== -1) throw jsonTooDeep('TG_REQUEST_INVALID', what, scan.tooDeepAt);
  const idSources = new WeakMap<object, string>();
  try {
    if (!scan.lossy) {
      const value = JSON.parse(text) as unknown;
      const source = scan.idSource;
      if (source !== undefined && isObject(value)) {
        idSources.set(value, source);
        // What the lossless pass does to the id: an integer beyond 2^53 is a bigint.
        const id = value['id'];
        if (typeof id === 'number' && !Number.isSafeInteger(id) && INTEGER_LITERAL.test(source)) value['id'] = BigInt(source);
      }
      return { value, idSources };
    }
    const value = JSON.parse(text, function (this: object, key: string, parsed: unknown, context?: { source?: string }) {
      if (typeof parsed !== 'number' || context?.source === undefined) return parsed;
      if (key === 'id') idSources.set(this, context.source);
      if (!Number.isSafeInteger(parsed) && INTEGER_LITERAL.test(context.source)) return BigInt(context.source);
      return parsed;
    }) as unknown;
    return { value, idSources };
  } catch (error) {
    throw notJsonError(what, error);
  }
}
