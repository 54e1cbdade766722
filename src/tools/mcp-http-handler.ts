import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContextOf } from '../auth/index.ts';
import { readJsonBody } from '../http/index.ts';
import { continueSession, initializeSession, ownerOf, type McpSessionDeps } from './mcp-http-sessions.ts';
import { refuseMissingScopes } from './mcp-scope-precheck.ts';
import { authInfoOf } from './mcp-server.ts';
import { parseToolBody } from './tool-body-json.ts';

export const MCP_PATH = '/mcp';
/** Largest MCP message over Streamable HTTP: the SDK's own limit, 4 MiB. */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;
const parseMessage = parseToolBody('The MCP message');

/** A JSON media type, whatever its charset: the body reader refuses charsets other than UTF-8. */
function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
}

/**
 * `/mcp`: MCP Streamable HTTP through the SDK's transport. The caller goes to the SDK as `auth`,
 * calls it lacks the scopes for are refused before any answer opens, and the request then goes to
 * its era: a 2026-07-28 request (its `_meta` envelope) to the stateless endpoint, any other to its
 * session (`Mcp-Session-Id`) or, without one, must be the `initialize` that opens one.
 */
export function createMcpHandler(deps: McpSessionDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const context = requestContextOf(req);
    const request = req as IncomingMessage & { auth?: ReturnType<typeof authInfoOf> };
    if (context !== undefined) request.auth = authInfoOf(context);
    const sessionId = req.headers['mcp-session-id'];
    // Another media type goes on unread: the SDK's transport answers it in the protocol (415).
    const parsed = req.method === 'POST' && isJson(req.headers['content-type']) ? await readJsonBody(req, { route: `POST ${MCP_PATH}`, limitBytes: MCP_BODY_LIMIT }, parseMessage) : undefined;
    refuseMissingScopes(deps.registry, parsed, context);
    if (deps.modern !== undefined && await deps.modern.claims(req, parsed)) {
      await deps.modern.serve(request, res, parsed);
      return;
    }

    const owner = ownerOf(context);
    if (typeof sessionId === 'string') await continueSession(deps, request, res, sessionId, owner, parsed);
    else await initializeSession(deps, request, res, owner, parsed);
  };
}
