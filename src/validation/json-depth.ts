import { ToolgraphError, type ErrorCode } from '../errors/index.ts';

/**
 * Deepest nesting of arrays and objects a JSON request body may have, on every route that reads
 * one with free-form values in it (/dispatch, POST /mcp/tools/call, /mcp). A native request takes 4
 * levels, a tool call or MCP message 3 or 4 around its arguments, and Cypher refuses parameters
 * nested deeper than 64, so 100 leaves room and stops a hostile body long before anything
 * recursive (a JSON.parse reviver, a validator, JSON.stringify on the way to the graph service)
 * sees it.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Where `text` first nests arrays and objects deeper than `limit`: the offset of that bracket, or
 * -1. One pass without recursion; strings are skipped whole (to their closing quote). The text
 * need not be valid JSON: JSON.parse decides that afterwards.
 */
export function jsonTooDeepAt(text: string, limit: number = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // The closing quote is the next one not escaped by an odd run of backslashes.
      let j = i + 1;
      for (;;) {
        j = text.indexOf('"', j);
        if (j === -1) return -1;
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j++;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return i;
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
  return -1;
}

/** The refusal of a body nested deeper than MAX_JSON_DEPTH at `offset`, with the route's own code (400). */
export function jsonTooDeep(code: ErrorCode, what: string, offset: number): ToolgraphError {
  return new ToolgraphError(code, `${what} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (at character ${offset + 1}); at most ${MAX_JSON_DEPTH} are accepted.`, {
    details: { limit: MAX_JSON_DEPTH, offset },
  });
}
