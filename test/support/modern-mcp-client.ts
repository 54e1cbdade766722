import { Client, StreamableHTTPClientTransport, type ElicitRequestURLParams, type ElicitResult } from '@modelcontextprotocol/client';

/** How a test's user answers a URL-mode elicitation that the server's `input_required` result carries. */
export type UrlElicitationAnswer = (params: ElicitRequestURLParams) => Promise<ElicitResult>;

/**
 * The official SDK 2.x client pinned to MCP revision 2026-07-28 (stateless), with a bearer token when
 * given. `onUrlElicitation` declares URL-mode elicitation and answers it (the SDK's multi-round-trip
 * driver dispatches each `input_required` request to it and retries with the answer); `urlElicitation`
 * only declares the capability.
 */
export async function modernMcpClient(origin: string, options: { token?: string; urlElicitation?: boolean; onUrlElicitation?: UrlElicitationAnswer } = {}): Promise<Client> {
  const declares = options.urlElicitation === true || options.onUrlElicitation !== undefined;
  const client = new Client({ name: 'toolgraph-test', version: '2.0.0' }, {
    capabilities: declares ? { elicitation: { url: {} } } : {},
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  const answer = options.onUrlElicitation;
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      if (request.params.mode !== 'url') throw new Error(`this test answers URL-mode elicitations only, not ${JSON.stringify(request.params)}`);
      return answer(request.params);
    });
  }
  const headers = options.token === undefined ? undefined : { authorization: `Bearer ${options.token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), headers === undefined ? {} : { requestInit: { headers } }));
  return client;
}

/** The `_meta` envelope a 2026-07-28 request carries (for raw requests on the wire). */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
}

/**
 * One raw 2026-07-28 JSON-RPC request to `/mcp`, with the headers the revision requires (overridable)
 * and an envelope declaring `capabilities`.
 */
export function modernRequest(origin: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, capabilities: Record<string, unknown> = {}): Promise<Response> {
  const name: Record<string, string> = typeof params['name'] === 'string' ? { 'mcp-name': params['name'] } : {};
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope(capabilities) } }),
  });
}
