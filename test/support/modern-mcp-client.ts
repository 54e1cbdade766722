import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** The official SDK 2.x client pinned to MCP revision 2026-07-28 (stateless), with a bearer token when given. */
export async function modernMcpClient(origin: string, options: { token?: string; urlElicitation?: boolean } = {}): Promise<Client> {
  const client = new Client({ name: 'toolgraph-test', version: '2.0.0' }, {
    capabilities: options.urlElicitation === true ? { elicitation: { url: {} } } : {},
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
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

/** One raw 2026-07-28 JSON-RPC request to `/mcp`, with the headers the revision requires (overridable). */
export function modernRequest(origin: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Response> {
  const name: Record<string, string> = typeof params['name'] === 'string' ? { 'mcp-name': params['name'] } : {};
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope() } }),
  });
}
