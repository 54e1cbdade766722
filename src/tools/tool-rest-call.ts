import type { IncomingMessage, ServerResponse } from 'node:http';
import { validateCallToolRequest } from '../../generated/validators/openapi.ts';
import { requestContextOf } from '../auth/index.ts';
import { ToolgraphError } from '../errors/index.ts';
import { readJsonBody, sendError, sendJson, type ResponseBody } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { fieldViolations } from '../validation/index.ts';
import { parseToolBody } from './tool-body-json.ts';
import type { ToolRegistry } from './tool-registry.ts';

export const TOOLS_CALL_PATH = '/mcp/tools/call';
/** Largest REST call body: 1 MiB. */
const TOOLS_CALL_BODY_LIMIT = 1024 * 1024;
const parseToolCall = parseToolBody('The tool call');

/**
 * `POST /mcp/tools/call`: the REST call `{name, arguments: {action, …}}`, answered with MCP's
 * CallToolResult (200; `isError: true` when the tool failed). An unknown tool or action is 404
 * TG_TOOL_NOT_FOUND and invalid arguments 400 TG_TOOL_ARGUMENTS_INVALID, with ErrorBody; a body
 * nested deeper than MAX_JSON_DEPTH is 400 TG_BAD_REQUEST, unparsed.
 */
export function createRestCallHandler(registry: ToolRegistry, logger: Logger): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (req.method !== 'POST') {
      sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method ?? 'GET'} is not allowed on ${TOOLS_CALL_PATH}; use POST.`), { allow: 'POST' });
      return;
    }
    const body = await readJsonBody(req, { route: `POST ${TOOLS_CALL_PATH}`, limitBytes: TOOLS_CALL_BODY_LIMIT }, parseToolCall);
    if (!validateCallToolRequest(body)) {
      const violations = fieldViolations(validateCallToolRequest.errors);
      throw new ToolgraphError('TG_BAD_REQUEST', `The body is not a tool call {name, arguments}: ${violations.map((v) => v.text).join('; ')}.`, {
        details: { violations: violations.map(({ pointer, expected, got }) => ({ pointer, expected, got })) },
      });
    }
    const call = registry.resolve(body.name, body.arguments);
    const context = requestContextOf(req);
    registry.authorize(call, context);
    // The caller goes to the tool explicitly (its delegated credentials read it from `request`); no
    // AsyncLocalStorage scope, which once entered would hook every promise of the process.
    const result: ResponseBody<'callTool', 200> = await registry.run(call, { request: context, logger, signal: undefined });
    sendJson(res, 200, result);
  };
}
