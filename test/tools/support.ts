import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { resolveConfig, type ResolvedConfig } from '../../src/config/index.ts';
import type { Logger } from '../../src/log/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import type { SecretValue } from '../../src/secrets/index.ts';
import { startToolgraph, type RunningToolgraph, type ServiceName } from '../../src/serve/index.ts';

/** A fresh HOME (so no config.json of the machine's), port 0, in-memory graphs, plus `env`. */
export function toolgraphConfig(env: Record<string, string> = {}): ResolvedConfig {
  return resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', ...env } });
}

export function startServe(options: { env?: Record<string, string>; logger?: Logger; only?: readonly ServiceName[]; secretsSeed?: Record<string, SecretValue> } = {}): Promise<RunningToolgraph> {
  return startToolgraph({
    config: toolgraphConfig(options.env),
    logger: options.logger ?? silentLogger(),
    ...(options.only ? { only: options.only } : {}),
    ...(options.secretsSeed ? { secretsSeed: options.secretsSeed } : {}),
  });
}

/** The official SDK client connected over Streamable HTTP, with a bearer token when given. */
export async function mcpClient(origin: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'toolgraph-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** POST /mcp/tools/call. */
export function restCall(origin: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin}/mcp/tools/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The text of a CallToolResult's first content block. */
export function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}
