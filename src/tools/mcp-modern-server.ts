import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, ProtocolError, ProtocolErrorCode, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { RequestContext } from '../auth/index.ts';
import { ToolgraphError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { MCP_INSTRUCTIONS, SERVER_INFO } from './mcp-server.ts';
import type { RequestStateSealer } from './mcp-request-state.ts';
import type { ResolvedCall } from './tool-arguments.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { toolError, type ConsentRequiredContent, type ToolResult } from './tool-result.ts';

/** How long a client may cache `tools/list` and `server/discover` (2026-07-28 `ttlMs`): the tool set changes only with the configuration or a graph's schema, and `subscriptions/listen` says when. */
const LIST_TTL_MS = 60_000;

/** The key under which a consent is asked for in an `input_required` result (and answered in `inputResponses`). */
const CONSENT_INPUT = 'consent';

/** What this server seals into `requestState` when it asks for consent: which agent, which consent link. */
interface ConsentState {
  readonly agent: string;
  readonly elicitation: string;
}

function contextOf(ctx: ServerContext): RequestContext | undefined {
  const context = ctx.http?.authInfo?.extra?.['requestContext'];
  return context === undefined ? undefined : (context as RequestContext);
}

function consentAskedBy(result: ToolResult): ConsentRequiredContent['consent_required'] | undefined {
  if (!result.isError) return undefined;
  return (result.structuredContent as Partial<ConsentRequiredContent> | undefined)?.consent_required;
}

/**
 * Whether the request's envelope declares URL-mode elicitation among the client's capabilities.
 * SDK 2.x lifts the reserved `io.modelcontextprotocol/*` keys out of the `_meta` a handler sees and
 * surfaces them as `ctx.mcpReq.envelope`; reading `_meta` finds nothing there.
 */
function declaresUrlElicitation(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: { url?: unknown } } | undefined;
  return typeof declared?.elicitation?.url === 'object' && declared.elicitation.url !== null;
}

/**
 * One request's MCP server for revision 2026-07-28 (SDK 2.x; `createMcpHandler` builds one per
 * request, with no session): `tools/list` and `tools/call` are the registry's, as on the 2025
 * sessions (mcp-server.ts), so both revisions list and run the same tools.
 *
 * Three-legged consent rides the multi-round-trip flow: a call whose agent needs the caller's
 * consent answers `input_required` with one URL-mode elicitation (this server's consent link) and a
 * sealed `requestState` naming the agent and the link; the client sends its user there and retries
 * with the state and the user's answer. A declined or cancelled consent ends the call with a tool
 * error; an accepted one runs the tool again, which finds the caller's new token (or asks again if
 * the user did not finish). A client that declared no URL-mode elicitation gets the tool error whose
 * text and structured content carry the link, as on the 2025 sessions.
 */
export function createModernMcpServer(registry: ToolRegistry, logger: Logger, sealer: RequestStateSealer): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: MCP_INSTRUCTIONS,
    cacheHints: {
      'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
      'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
    },
    requestState: { verify: (state, ctx) => sealer.open(state, ctx) },
  });
  server.setRequestHandler('tools/list', (request) => {
    try {
      const page = registry.page(request.params?.cursor);
      return { tools: [...page.tools], ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
    } catch (thrown) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, (thrown as Error).message);
    }
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    if (registry.agent(name) === undefined) {
      const error = registry.resolveError(name);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, error.toBody().error);
    }
    const context = contextOf(ctx);
    let call: ResolvedCall;
    try {
      call = registry.resolve(name, request.params.arguments ?? {});
      registry.authorize(call, context);
    } catch (thrown) {
      return toolError(thrown).result;
    }
    const asked = ctx.mcpReq.requestState<ConsentState>();
    const answer = inputResponse(ctx.mcpReq.inputResponses, CONSENT_INPUT);
    if (asked !== undefined && answer.kind === 'elicit' && answer.action !== 'accept') {
      logger.info({ tool: call.agent.name, action: call.action.name, agent: asked.agent, outcome: 'TG_CONSENT_DECLINED', answer: answer.action }, 'tool call');
      return toolError(new ToolgraphError('TG_CONSENT_DECLINED', `The consent for agent ${asked.agent} was ${answer.action === 'decline' ? 'declined' : 'cancelled'}; call again to be asked anew.`, { details: { agent: asked.agent } })).result;
    }
    const result = await registry.run(call, { request: context, logger, signal: ctx.mcpReq.signal });
    const consent = consentAskedBy(result);
    const urlElicitation = declaresUrlElicitation(ctx);
    if (consent === undefined || !urlElicitation) return result;
    const message = result.content[0]?.text ?? `Agent ${consent.agent} needs your consent.`;
    return inputRequired({
      inputRequests: { [CONSENT_INPUT]: inputRequired.elicitUrl({ message, url: consent.authorization_url }) },
      requestState: await sealer.seal({ agent: consent.agent, elicitation: consent.elicitation_id } satisfies ConsentState, ctx),
    });
  });
  return server;
}
