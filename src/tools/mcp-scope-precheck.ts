import type { RequestContext } from '../auth/index.ts';
import type { ResolvedCall } from './tool-arguments.ts';
import type { ToolRegistry } from './tool-registry.ts';

/**
 * Tool calls whose caller lacks the action's scopes are refused here, before the transport opens
 * an SSE answer: as HTTP 403 with the `insufficient_scope` challenge, which MCP clients step up from.
 * Calls that do not resolve are left to the MCP handler, which answers them in the protocol.
 */
export function refuseMissingScopes(registry: ToolRegistry, parsed: unknown, context: RequestContext | undefined): void {
  if (context === undefined) return;
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const m = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
    if (m === null || typeof m !== 'object' || m.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
    let call: ResolvedCall;
    try {
      call = registry.resolve(m.params.name, m.params.arguments ?? {});
    } catch {
      continue;
    }
    registry.authorize(call, context);
  }
}
