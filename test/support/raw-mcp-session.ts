/**
 * MCP over plain fetch, for tests that count sessions and refusals (status, Retry-After) rather
 * than use them: the SDK client hides both.
 */

export interface OpenedSession {
  readonly status: number;
  /** The Mcp-Session-Id the server gave, or null when it refused. */
  readonly id: string | null;
  readonly retryAfter: string | null;
  readonly body: string;
}

function headers(token: string | undefined, more: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...more };
}

/** Opens a session with a raw initialize (revision 2025-06-18); answers its id, or the refusal. */
export async function openRawSession(origin: string, token?: string): Promise<OpenedSession> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: headers(token),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  return { status: response.status, id: response.headers.get('mcp-session-id'), retryAfter: response.headers.get('retry-after'), body: await response.text() };
}

/** tools/list on a session: 200 while it is open, 404 once it was closed. */
export async function rawToolsListStatus(origin: string, token: string, id: string): Promise<number> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: headers(token, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await response.text();
  return response.status;
}
