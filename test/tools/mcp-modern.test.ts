import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { modernMcpClient, modernRequest } from '../support/modern-mcp-client.ts';
import { mcpClient, startServe, textOf } from './support.ts';

let running: RunningToolgraph;
let modern: ModernClient;
let legacy: Client;

beforeAll(async () => {
  running = await startServe();
  modern = await modernMcpClient(running.origin);
  ({ client: legacy } = await mcpClient(running.origin));
});
afterAll(async () => {
  await modern?.close();
  await legacy?.close();
  await running?.close();
});

const CYPHER = { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization {name: $name}) RETURN o.name AS name', params: { name: 'Acme Analytics' } } };

describe('MCP revision 2026-07-28 on /mcp beside the 2025 sessions, with the official SDK 2.x client', () => {
  it('negotiates 2026-07-28 through server/discover, and the 2025 client still negotiates 2025-11-25 on the same endpoint', async () => {
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const discovered = await modern.discover();
    expect(discovered.supportedVersions).toContain('2026-07-28');
    expect(discovered.capabilities.tools).toEqual({ listChanged: true });
    expect(modern.getServerVersion()).toMatchObject({ name: 'toolgraph' });
    expect(legacy.getServerVersion()).toMatchObject({ name: 'toolgraph' });
    const raw = await modernRequest(running.origin, 'server/discover');
    expect(raw.status).toBe(200);
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    expect(await raw.json()).toMatchObject({ result: { resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' } });
  });

  it('lists the same tools in the same order as the 2025 session, with resultType and cache hints on the wire', async () => {
    const { tools } = await modern.listTools();
    const { tools: old } = await legacy.listTools();
    expect(tools.map((t) => t.name)).toEqual(old.map((t) => t.name));
    expect(tools).toEqual(old);
    const first = (await (await modernRequest(running.origin, 'tools/list')).json()) as { result: { resultType: string; ttlMs: number; cacheScope: string; tools: { name: string }[] } };
    const second = (await (await modernRequest(running.origin, 'tools/list')).json()) as typeof first;
    expect(first.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
    expect(second.result.tools.map((t) => t.name)).toEqual(first.result.tools.map((t) => t.name));
  });

  it('calls a tool with no session: the same structured content as on the 2025 session and no Mcp-Session-Id', async () => {
    const result = await modern.callTool(CYPHER);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual((await legacy.callTool(CYPHER)).structuredContent);
    const raw = await modernRequest(running.origin, 'tools/call', CYPHER);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    const body = (await raw.json()) as { result: { resultType: string; structuredContent: unknown } };
    expect(body.result).toMatchObject({ resultType: 'complete', structuredContent: { columns: ['name'], rows: [['Acme Analytics']] } });
  });

  it('sorts errors as the 2025 revision does: an unknown tool is -32602 naming the tools, bad arguments are a tool error', async () => {
    const unknown = (await (await modernRequest(running.origin, 'tools/call', { name: 'nope', arguments: {} })).json()) as { error: { code: number; message: string } };
    expect(unknown.error).toMatchObject({ code: -32602, message: 'No tool is named "nope"; the tools are graph, schemas, secrets, search_tools, persisted-peoplewithcolleagues, persisted-personpage.' });
    const bad = await modern.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'bad name!', query: 'RETURN 1' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('Invalid arguments for graph.cypher');
  });

  it('refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body (-32020), and a revision it does not serve', async () => {
    const method = await modernRequest(running.origin, 'tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(((await method.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const name = await modernRequest(running.origin, 'tools/call', CYPHER, { 'mcp-name': 'schemas' });
    expect(((await name.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const future = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    const refused = (await future.json()) as { error: { code: number; data?: { supported?: string[] } } };
    expect(refused.error.data?.supported).toContain('2026-07-28');
  });

  it('still serves a 2025-06-18 client through its own initialize', async () => {
    const init = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toMatch(/.+/);
    expect(await init.text()).toContain('"protocolVersion":"2025-06-18"');
  });
});
