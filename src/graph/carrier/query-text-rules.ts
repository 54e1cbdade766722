import { ToolgraphError } from '../../errors/index.ts';

/** Spec, Limits: query text is at most 32 KiB (UTF-8 bytes). */
const MAX_QUERY_BYTES = 32 * 1024;
/** Spec, Limits: syntax nesting is at most 64 delimiters. */
export const MAX_NESTING = 64;

const OPEN = new Set(['{', '(', '[']);
const CLOSE = new Set(['}', ')', ']']);

function tooComplex(message: string, details: Record<string, unknown>): ToolgraphError {
  return new ToolgraphError('TG_QUERY_TOO_COMPLEX', message, { details });
}

/**
 * The deepest nesting of `{`, `(` and `[` in GraphQL source text, skipping strings, block strings and
 * comments. It scans the raw text once, so it runs before the parser ever sees a hostile document.
 */
export function nestingDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let max = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '#') {
      while (i < n && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    if (c === '"') {
      if (text.startsWith('"""', i)) {
        i += 3;
        while (i < n && !text.startsWith('"""', i)) i += text.startsWith('\\"""', i) ? 4 : 1;
        i += 3;
      } else {
        i++;
        while (i < n && text[i] !== '"' && text[i] !== '\n' && text[i] !== '\r') i += text[i] === '\\' ? 2 : 1;
        i++;
      }
      continue;
    }
    if (OPEN.has(c)) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (CLOSE.has(c) && depth > 0) depth--;
    i++;
  }
  return max;
}

/** The text rules checked before parsing: size, then delimiter nesting. */
export function checkQueryText(query: string): void {
  const bytes = Buffer.byteLength(query, 'utf8');
  if (bytes > MAX_QUERY_BYTES) {
    throw tooComplex(`The subscription text is ${bytes} bytes; the carrier accepts at most ${MAX_QUERY_BYTES} (32 KiB).`, { limit: MAX_QUERY_BYTES, got: bytes });
  }
  const depth = nestingDepth(query, MAX_NESTING);
  if (depth > MAX_NESTING) {
    throw tooComplex(`The subscription text nests more than ${MAX_NESTING} delimiters ({, ( or [) deep; the carrier accepts at most ${MAX_NESTING}.`, { limit: MAX_NESTING });
  }
}
