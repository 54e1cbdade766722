import { toToolgraphError, type ToolgraphError } from '../errors/index.ts';

/** MCP's CallToolResult as this server answers it (text content only), for MCP and the REST endpoint alike. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A successful call: the output as structured content, and the same JSON as text for clients that read only text. */
export function toolSuccess(output: object): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output as Record<string, unknown> };
}

/**
 * A failed call: `isError: true` with the error's message as the text, verbatim (the spec's own
 * texts, such as `No user token available for delegation`, come through unchanged). An unexpected
 * fault shows only `Internal server error.`; the log has the rest.
 */
export function toolError(thrown: unknown): { result: ToolResult; error: ToolgraphError } {
  const error = toToolgraphError(thrown);
  return { result: { content: [{ type: 'text', text: error.message }], isError: true }, error };
}
