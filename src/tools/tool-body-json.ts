import { jsonTooDeep, jsonTooDeepAt } from '../validation/index.ts';

/**
 * The JSON text of a tool server body (a REST tool call or an MCP message; `what` names it),
 * refused unparsed when it nests arrays and objects deeper than MAX_JSON_DEPTH: 400 TG_BAD_REQUEST,
 * as /dispatch refuses its bodies. Arguments go on to the validators, the SDK and a tool's way to its
 * downstream (JSON.stringify), all recursive: a body nested thousands deep made them overflow the
 * stack, and the caller got "Internal server error." A ToolgraphError thrown here passes through
 * readJsonBody as it is; anything JSON.parse throws is its not-JSON refusal.
 */
export function parseToolBody(what: string): (text: string) => unknown {
  return (text) => {
    const at = jsonTooDeepAt(text);
    if (at !== -1) throw jsonTooDeep('TG_BAD_REQUEST', what, at);
    return JSON.parse(text) as unknown;
  };
}

