import { createHash } from 'node:crypto';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { MANIFEST_URI_META_KEY, SCHEMA_DIGEST_META_KEY } from '../../src/tools/operation-tools.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { modernMcpClient } from '../support/modern-mcp-client.ts';
import { mcpClient, restCall, startServe, textOf, toolgraphConfig } from './support.ts';

interface ListedTool {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
  _meta?: Record<string, unknown>;
}

const PERSISTED = ['persisted-peoplewithcolleagues', 'persisted-personpage'];

let running: RunningToolgraph;
let legacy: Client;
let modern: ModernClient;
let lines: string[];

beforeAll(async () => {
  const log = captureLogger('debug');
  lines = log.lines;
  running = await startServe({ logger: log.logger, env: { LOG_LEVEL: 'debug' } });
  await running.settled();
  ({ client: legacy } = await mcpClient(running.origin));
  modern = await modernMcpClient(running.origin);
});
afterAll(async () => {
  await legacy?.close();
  await modern?.close();
  await running?.close();
});

/** The canonical schema document of a manifest, reassembled from its 4 KiB fragments as a client does. */
async function reassembled(manifestUri: string): Promise<{ manifest: { schema_sha256: string; fragment_count: number; fragment_uri_template: string }; document: Buffer }> {
  const manifest = await (await fetch(manifestUri)).json() as { schema_sha256: string; fragment_count: number; fragment_uri_template: string };
  const parts: Buffer[] = [];
  for (let index = 0; index < manifest.fragment_count; index++) {
    parts.push(Buffer.from(await (await fetch(manifest.fragment_uri_template.replace('{index}', String(index)))).arrayBuffer()));
  }
  return { manifest, document: Buffer.concat(parts) };
}

const dispatches = (): number => lines.filter((l) => l.includes('"msg":"dispatch"')).length;

describe('operation tools: each trusted GraphQL document a tool tied to its SchemaManifest', () => {
  it('lists them after the built-in tools and search_tools, the same on 2025-11-25 and 2026-07-28', async () => {
    const names = (await legacy.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['graph', 'schemas', 'secrets', 'search_tools', ...PERSISTED]);
    expect((await modern.listTools()).tools).toEqual((await legacy.listTools()).tools);
    // The mutation document is not listed: mutations are off unless TOOLGRAPH_MCP_OPERATION_MUTATIONS.
    expect(names).not.toContain('persisted-createnode');
  });

  it('gives each tool exactly its manifest\'s canonical schemas, and a digest the catalogue\'s fragments verify', async () => {
    const tools = (await legacy.listTools()).tools as ListedTool[];
    for (const name of PERSISTED) {
      const tool = tools.find((t) => t.name === name) as ListedTool;
      const digest = tool._meta?.[SCHEMA_DIGEST_META_KEY] as string;
      const { manifest, document } = await reassembled(tool._meta?.[MANIFEST_URI_META_KEY] as string);
      expect(manifest.schema_sha256).toBe(digest);
      expect(createHash('sha256').update(document).digest('hex')).toBe(digest);
      const parsed = JSON.parse(document.toString('utf8')) as { input: unknown; output: unknown };
      expect(tool.inputSchema).toEqual(parsed.input);
      expect(tool.outputSchema).toEqual(parsed.output);
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it('runs a persisted query over both revisions with the same answer, which its output schema accepts', async () => {
    const tools = (await legacy.listTools()).tools as ListedTool[];
    const page = tools.find((t) => t.name === 'persisted-personpage') as ListedTool;
    // The SDK 1.x client checks structuredContent against the listed outputSchema itself.
    const old = await legacy.callTool({ name: 'persisted-personpage', arguments: { first: 2 } });
    const now = await modern.callTool({ name: 'persisted-personpage', arguments: { first: 2 } });
    expect(old.isError).toBeFalsy();
    expect(now.structuredContent).toEqual(old.structuredContent);
    const edges = (old.structuredContent as { data: { PersonConnection: { edges: { node: { name: string } }[] } } }).data.PersonConnection.edges;
    expect(edges.map((e) => e.node.name)).toEqual(['Ada Lovelace', 'Grace Hopper']);
    const validate = new Ajv2020({ strict: false }).compile(page.outputSchema as object);
    expect(validate(old.structuredContent)).toBe(true);
    // A document with abstract types, fragments and a defaulted variable.
    const colleagues = await legacy.callTool({ name: 'persisted-peoplewithcolleagues', arguments: {} });
    expect(colleagues.isError).toBeFalsy();
    expect(((colleagues.structuredContent as { data: { Person: unknown[] } }).data.Person).length).toBe(10);
  });

  it('refuses arguments the manifest\'s input schema refuses before anything reaches the graph service', async () => {
    const before = dispatches();
    const bad = await legacy.callTool({ name: 'persisted-personpage', arguments: { first: 'ten', extra: true } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe('Invalid arguments for persisted-personpage (2 violations): /extra: expected no property "extra", got true; /first: expected an integer from -2147483648 to 2147483647, got "ten".');
    const missing = await modern.callTool({ name: 'persisted-personpage', arguments: {} });
    expect(textOf(missing)).toContain('/first: expected required property');
    await legacy.callTool({ name: 'persisted-personpage', arguments: { first: 1 } });
    // Only the valid call was dispatched.
    expect(dispatches() - before).toBe(1);
  });

  it('search_tools ranks the operation tools by what they do, with digests, over MCP and REST alike', async () => {
    const found = await legacy.callTool({ name: 'search_tools', arguments: { query: 'colleagues', limit: 3 } });
    const tools = (found.structuredContent as { tools: { name: string; schema_sha256: string; manifest_uri: string; inputSchema: unknown }[] }).tools;
    expect(tools[0]?.name).toBe('persisted-peoplewithcolleagues');
    const listed = ((await legacy.listTools()).tools as ListedTool[]).find((t) => t.name === 'persisted-peoplewithcolleagues') as ListedTool;
    expect(tools[0]).toMatchObject({ schema_sha256: listed._meta?.[SCHEMA_DIGEST_META_KEY], manifest_uri: listed._meta?.[MANIFEST_URI_META_KEY], inputSchema: listed.inputSchema });
    // Only tools are ranked: the graph's root fields (graph-person, …) are catalogue entries, not tools.
    const people = await modern.callTool({ name: 'search_tools', arguments: { query: 'person page' } });
    expect((people.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['persisted-personpage', 'persisted-peoplewithcolleagues']);
    const rest = await restCall(running.origin, { name: 'search_tools', arguments: { query: 'colleagues', limit: 3 } });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { structuredContent: unknown }).structuredContent).toEqual(found.structuredContent);
  });

  it('tells 2026-07-28 listeners when a graph\'s schema change changes the tools, and drops the documents that no longer validate', async () => {
    const other = await startServe();
    try {
      await other.settled();
      const client = await modernMcpClient(other.origin);
      let changes = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changes++;
      });
      const listening = await client.listen({ toolsListChanged: true });
      expect(listening.honoredFilter).toEqual({ toolsListChanged: true });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('persisted-personpage');
      // The demo graph goes away: no schema validates the documents any more.
      await other.engine?.dropGraph('demo');
      await other.settled();
      await expect.poll(() => changes, { timeout: 5000 }).toBe(1);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['graph', 'schemas', 'secrets']);
      const gone = await client.callTool({ name: 'persisted-personpage', arguments: { first: 1 } }).catch((error: Error) => error);
      expect(String(gone)).toContain('No tool is named "persisted-personpage"');
      await listening.close();
      await client.close();
    } finally {
      await other.close();
    }
  });
});

describe('TOOLGRAPH_MCP_OPERATION_TOOLS and TOOLGRAPH_MCP_OPERATION_MUTATIONS', () => {
  it('lists a mutation document only when mutations are on, and it writes', async () => {
    const writer = await startServe({ env: { TOOLGRAPH_MCP_OPERATION_MUTATIONS: 'true' } });
    try {
      await writer.settled();
      const { client } = await mcpClient(writer.origin);
      const tools = (await client.listTools()).tools as ListedTool[];
      const create = tools.find((t) => t.name === 'persisted-createnode');
      expect(create?.annotations?.readOnlyHint).toBe(false);
      const made = await client.callTool({ name: 'persisted-createnode', arguments: { label: 'Topic', id: 'topic-from-tool', props: { name: 'Operation tools', weight: 0.5 } } });
      expect(made.isError).toBeFalsy();
      expect(made.structuredContent).toEqual({ data: { createNode: { __typename: 'Topic', id: 'topic-from-tool', name: 'Operation tools', weight: 0.5 } } });
      await client.close();
    } finally {
      await writer.close();
    }
  });

  it('catalogue: every built-in action is a tool of its own too; off: only the built-in tools', async () => {
    const all = await startServe({ env: { TOOLGRAPH_MCP_OPERATION_TOOLS: 'catalogue' } });
    const none = await startServe({ env: { TOOLGRAPH_MCP_OPERATION_TOOLS: 'off' } });
    try {
      await all.settled();
      const { client } = await mcpClient(all.origin);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining([...PERSISTED, 'tools-graph_cypher', 'tools-schemas_search', 'tools-secrets_get']));
      const rows = await client.callTool({ name: 'tools-graph_cypher', arguments: { graph: 'demo', query: 'MATCH (o:Organization {name: $name}) RETURN o.name AS name', params: { name: 'Acme Analytics' } } });
      expect((rows.structuredContent as { rows: unknown[] }).rows).toEqual([['Acme Analytics']]);
      await client.close();
      const { client: plain } = await mcpClient(none.origin);
      expect((await plain.listTools()).tools.map((t) => t.name)).toEqual(['graph', 'schemas', 'secrets']);
      await plain.close();
    } finally {
      await all.close();
      await none.close();
    }
  });

  it('refuses a value the setting does not know, naming the values', () => {
    expect(() => toolgraphConfig({ TOOLGRAPH_MCP_OPERATION_TOOLS: 'everything' })).toThrow('TOOLGRAPH_MCP_OPERATION_TOOLS from env: expected one of persisted, catalogue, off, got "everything"');
  });
});
