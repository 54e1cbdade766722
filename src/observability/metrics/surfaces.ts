/**
 * The surfaces whose requests are counted and timed. `admin` is the graph service's policy and
 * namespace routes (/graphs/{graph}/access, /graphs/{graph}/namespace); `tools` is every HTTP request
 * to /mcp (tool calls are counted on their own as well: toolgraph_tool_calls_total).
 */
const SURFACES = ['graphql', 'dispatch', 'admin', 'catalogue', 'tools', 'carrier', 'auth'] as const;
export type Surface = (typeof SURFACES)[number];

/** Codes whose refusals are budget refusals, counted by the limit their details name. */
export const BUDGET_CODES: ReadonlySet<string> = new Set(['TG_QUERY_BUDGET_EXCEEDED', 'TG_QUERY_TOO_COMPLEX', 'TG_WRITE_TOO_LARGE']);
