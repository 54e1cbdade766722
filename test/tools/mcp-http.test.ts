import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_DEFINITIONS } from '../../generated/tools/definitions.ts';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { mcpClient, restCall, startServe, textOf } from './support.ts';

const SECRET = `seeded-${crypto.randomUUID()}`;

let running: RunningToolgraph;
let client: Client;
let lines: string[];

beforeAll(async () => {
  const captured = captureLogger('debug');
  lines = captured.lines;
  running = await startServe({ logger: captured.logger, secretsSeed: { 'team/db': { user: 'app', password: SECRET } } });
  ({ client } = await mcpClient(running.origin));
});
afterAll(async () => {
  await client?.close();
  await running?.close();
});

/** Checks a structured result against the action's output schema from specs/tools/. */
function expectOutput(tool: keyof typeof TOOL_DEFINITIONS, action: string, value: unknown): void {
  const schema = (TOOL_DEFINITIONS[tool].actions as Record<string, { output: object }>)[action]!.output;
  const validate = new Ajv2020({ strict: false }).compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
}

describe('the tool server over MCP Streamable HTTP (AUTH_TYPE=none), with the official SDK client', () => {
  it('is mounted by serve as the tools service at /mcp', () => {
    expect(running.services.map((s) => s.name)).toEqual(['graph', 'graphql', 'catalogue', 'tools', 'metrics']);
    expect(running.services.find((s) => s.name === 'tools')!.url).toBe(`${running.origin}/mcp`);
  });

  it('lists one tool per agent, each with an action discriminator and an input schema per action', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['graph', 'schemas', 'secrets', 'search_tools', 'persisted-peoplewithcolleagues', 'persisted-personpage']);
    const graph = tools.find((t) => t.name === 'graph')!;
    const input = graph.inputSchema as unknown as { properties: { action: { enum: string[] } }; oneOf: { properties: { action: { const: string } }; required: string[] }[] };
    // explain is listed because serve hands the tool server its engine's planner.
    expect(input.properties.action.enum).toEqual(['cypher', 'explain', 'mutate', 'query', 'schema']);
    expect(input.oneOf.map((o) => o.properties.action.const)).toEqual(['cypher', 'explain', 'mutate', 'query', 'schema']);
    expect(input.oneOf.find((o) => o.properties.action.const === 'cypher')!.required).toEqual(['action', 'graph', 'query']);
    expect(graph.annotations?.readOnlyHint).toBe(false);
    expect(tools.find((t) => t.name === 'schemas')!.annotations?.readOnlyHint).toBe(true);
  });

  it('graph.cypher reaches the graph service\'s /dispatch and answers its rows as structured content', async () => {
    const result = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization {name: $name}) RETURN o.name AS name', params: { name: 'Acme Analytics' } } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ columns: ['name'], rows: [['Acme Analytics']], version: 3 });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expectOutput('graph', 'cypher', result.structuredContent);
    expect(lines.some((l) => l.includes('"rpc":"Cypher"') && l.includes('"msg":"dispatch"'))).toBe(true);
  });

  it('a failing graph call is isError with the graph service\'s own message', async () => {
    const result = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (p:Person RETURN p' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("Cypher syntax error at line 1, column 17: expected ')' to close the node pattern but found 'RETURN'.");
    const missing = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'nope', query: 'RETURN 1 AS n' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('nope');
  });

  it('graph.explain answers the equivalent Cypher and the plan, and that Cypher gives the query\'s data', async () => {
    const query = 'query Who($n: Int) { Person(first: $n, name: "Ada Lovelace") { name WORKS_AT { name } } }';
    const result = await client.callTool({ name: 'graph', arguments: { action: 'explain', graph: 'demo', query, variables: { n: 1 } } });
    expect(result.isError).toBeUndefined();
    expectOutput('graph', 'explain', result.structuredContent);
    const statement = [
      "MATCH (person:Person {name: 'Ada Lovelace'})",
      'RETURN person {.name, WORKS_AT: [(person)-[:WORKS_AT]->(organization:Organization) | organization {.name}]} AS Person',
      'ORDER BY person.id',
      'LIMIT 1',
    ].join('\n');
    expect(result.structuredContent).toMatchObject({
      graph: 'demo',
      plan: {
        operation: 'Who',
        cypher: [{ key: 'Person', statement }],
        steps: [
          { kind: 'scan', label: 'Person', filters: [{ property: 'name', value: 'Ada Lovelace' }], limit: 1 },
          { kind: 'expand', path: 'Person.WORKS_AT', edgeType: 'WORKS_AT', direction: 'out', to: ['Organization'] },
        ],
      },
    });
    expect((result.structuredContent as { plan: { text: string } }).plan.text).toContain("1. scan Person for Person: filter name = 'Ada Lovelace'; first 1");
    const rows = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: statement } });
    const data = await client.callTool({ name: 'graph', arguments: { action: 'query', graph: 'demo', query, variables: { n: 1 } } });
    expect((rows.structuredContent as { rows: unknown[][] }).rows.map((r) => r[0])).toEqual((data.structuredContent as { data: { Person: unknown[] } }).data.Person);

    const refused = await client.callTool({ name: 'graph', arguments: { action: 'explain', graph: 'demo', query: '{ Spaceship { name } }' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^GraphQL: no node type "Spaceship" in this graph/);
    const missing = await client.callTool({ name: 'graph', arguments: { action: 'explain', graph: 'nope', query: '{ Person { id } }' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('nope');
  });

  it('graph.query sends the GraphQl method to the graph service and answers the GraphQL result', async () => {
    const result = await client.callTool({ name: 'graph', arguments: { action: 'query', graph: 'demo', query: 'query People($n: Int) { Person(first: $n) { name WORKS_AT { name } } }', variables: { n: 1 } } });
    expect(result.structuredContent).toEqual({ data: { Person: [{ name: 'Ada Lovelace', WORKS_AT: [{ name: 'Acme Analytics' }, { name: 'Lumen Foundation' }] }] }, extensions: { version: 3 } });
    expectOutput('graph', 'query', result.structuredContent);
    const unknown = await client.callTool({ name: 'graph', arguments: { action: 'query', graph: 'demo', query: '{ Spaceship { name } }' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^GraphQL: no node type "Spaceship" in this graph; root fields must be node labels/);
  });

  it('graph.schema answers the graph\'s subgraph SDL (the federation _service query)', async () => {
    const result = await client.callTool({ name: 'graph', arguments: { action: 'schema', graph: 'demo' } });
    expectOutput('graph', 'schema', result.structuredContent);
    const { sdl } = result.structuredContent as { sdl: string };
    // specs/graph.graphql is this SDL (npm run introspect writes it from the same fixtures), under its generated-file header.
    const committed = readFileSync(new URL('../../specs/graph.graphql', import.meta.url), 'utf8').replace(/^(#[^\n]*\n)+/, '');
    expect(sdl.trim()).toBe(committed.trim());
  });

  it('graph.query refuses a mutation and graph.mutate a query, naming the action to use', async () => {
    const query = await client.callTool({ name: 'graph', arguments: { action: 'query', graph: 'demo', query: 'mutation { addEdge(src: "a", tgt: "b", type: "X") { ok } }' } });
    expect(query.isError).toBe(true);
    expect(textOf(query)).toBe('graph.query runs query operations only; the document has a mutation operation (use the mutate action).');
    const mutate = await client.callTool({ name: 'graph', arguments: { action: 'mutate', graph: 'demo', query: '{ Person(first: 1) { id } }' } });
    expect(textOf(mutate)).toBe('graph.mutate runs mutation operations only; the document has a query operation (use the query action).');
  });

  it('schemas.search, get and fragment read the catalogue, and the fragments reassemble to the digest', async () => {
    const search = await client.callTool({ name: 'schemas', arguments: { action: 'search', query: 'graph cypher tool', limit: 3 } });
    expectOutput('schemas', 'search', search.structuredContent);
    const hits = (search.structuredContent as { results: { manifest: { operation: string; alias: string; schema_sha256: string; fragment_count: number; schema_bytes: number } }[] }).results;
    const own = hits.find((h) => h.manifest.operation === 'graph_cypher');
    expect(own, 'the tool server publishes its own actions in the catalogue').toBeDefined();
    expect(own!.manifest.alias).toBe('tools-graph_cypher');

    const get = await client.callTool({ name: 'schemas', arguments: { action: 'get', name: own!.manifest.alias } });
    expectOutput('schemas', 'get', get.structuredContent);
    const { manifest, schema } = get.structuredContent as { manifest: NonNullable<typeof own>["manifest"]; schema: { operation: string; input: unknown } };
    expect(schema.operation).toBe('graph_cypher');
    expect(schema.input).toEqual(TOOL_DEFINITIONS.graph.actions.cypher.input);

    const parts: Buffer[] = [];
    for (let index = 0; index < manifest.fragment_count; index++) {
      const fragment = await client.callTool({ name: 'schemas', arguments: { action: 'fragment', schema_sha256: manifest.schema_sha256, index } });
      expectOutput('schemas', 'fragment', fragment.structuredContent);
      parts.push(Buffer.from((fragment.structuredContent as { data_base64: string }).data_base64, 'base64'));
    }
    const whole = Buffer.concat(parts);
    expect(whole.length).toBe(manifest.schema_bytes);
    expect(createHash('sha256').update(whole).digest('hex')).toBe(manifest.schema_sha256);

    const past = await client.callTool({ name: 'schemas', arguments: { action: 'fragment', schema_sha256: manifest.schema_sha256, index: manifest.fragment_count } });
    expect(textOf(past)).toBe(`Fragment ${manifest.fragment_count} is past the end: schema ${manifest.schema_sha256} has ${manifest.fragment_count} fragment${manifest.fragment_count === 1 ? '' : 's'} (0 to ${manifest.fragment_count - 1}).`);
    const unknown = await client.callTool({ name: 'schemas', arguments: { action: 'get', name: 'no-such-operation' } });
    expect(textOf(unknown)).toBe('No manifest has the alias or operation "no-such-operation"; search the catalogue for the alias.');
  });

  it('secrets.get reads the configured backend, one field or the whole object', async () => {
    const whole = await client.callTool({ name: 'secrets', arguments: { action: 'get', key: 'team/db' } });
    expect(whole.structuredContent).toEqual({ key: 'team/db', value: { user: 'app', password: SECRET } });
    const field = await client.callTool({ name: 'secrets', arguments: { action: 'get', key: 'team/db', field: 'user' } });
    expect(field.structuredContent).toEqual({ key: 'team/db', field: 'user', value: 'app' });
    const missing = await client.callTool({ name: 'secrets', arguments: { action: 'get', key: 'team/db', field: 'token' } });
    expect(textOf(missing)).toBe('The secret "team/db" has no field "token"; its fields are "user", "password".');
    // Secret values never reach the log, even when a tool returned one.
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('an unknown tool is a JSON-RPC error naming it and the tools there are', async () => {
    await expect(client.callTool({ name: 'grpah', arguments: { action: 'cypher' } })).rejects.toThrow('MCP error -32602: No tool is named "grpah"; the tools are graph, schemas, secrets, search_tools, persisted-peoplewithcolleagues, persisted-personpage.');
  });

  it('an unknown action and invalid arguments are tool errors naming the action or each JSON pointer', async () => {
    const unknown = await client.callTool({ name: 'graph', arguments: { action: 'drop', graph: 'demo' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe('Tool graph has no action "drop"; its actions are cypher, explain, mutate, query, schema.');
    const invalid = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'bad name!', query: '', extra: 1 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toBe('Invalid arguments for graph.cypher (3 violations): /extra: expected no property "extra", got 1; /graph: expected a string matching ^[A-Za-z][A-Za-z0-9_-]{0,63}$, got "bad name!"; /query: expected a string of 1 to 32768 characters, got "".');
    const noAction = await client.callTool({ name: 'schemas', arguments: { query: 'x' } });
    expect(textOf(noAction)).toBe('Tool schemas: /action: expected one of fragment, get, search, got nothing.');
  });

  it('a session ends with DELETE; its id then answers 404 and a new session starts with initialize', async () => {
    const { client: own, transport } = await mcpClient(running.origin);
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await transport.terminateSession();
    const after = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ error: { code: -32001 } });
    await own.close();
  });

  it('answers a request as one JSON body (it sends nothing while a request runs, so no stream is opened), and refuses requests without a session', async () => {
    const init = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('application/json');
    const session = init.headers.get('mcp-session-id')!;
    expect(await init.text()).toContain('"serverInfo":{"name":"toolgraph"');
    const noSession = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    expect(await fetch(`${running.origin}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } })).toMatchObject({ status: 200 });
  });

  it('refuses a Host or Origin that is not this server (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`${running.origin}/mcp/tools/call`);
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ name: 'schemas', arguments: { action: 'search', query: 'x' } }));
    });
    const port = new URL(running.origin).port;
    expect((await status({ host: `attacker.example:${port}` })).status).toBe(403);
    expect(JSON.parse((await status({ host: `attacker.example:${port}` })).body).error.message).toContain('Host "attacker.example:');
    expect((await status({ host: `127.0.0.1:${port}`, origin: 'http://attacker.example' })).status).toBe(403);
    expect((await status({ host: `localhost:${port}` })).status).toBe(200);
    expect((await status({ host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
  });
});

describe('the REST endpoint POST /mcp/tools/call', () => {
  it('answers a CallToolResult', async () => {
    const response = await restCall(running.origin, { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization) RETURN count(*) AS n' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ content: [{ type: 'text', text: '{"columns":["n"],"rows":[[8]],"version":3}' }], structuredContent: { columns: ['n'], rows: [[8]], version: 3 } });
  });

  it('answers a failing tool with 200 and isError', async () => {
    const response = await restCall(running.origin, { name: 'secrets', arguments: { action: 'get', key: 'team/none' } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { isError: boolean; content: { text: string }[] };
    expect(body.isError).toBe(true);
    expect(body.content[0]!.text).toBe('no secret under key "team/none": the in-memory backend holds 1 other key(s)');
  });

  it.each([
    ['an unknown tool', { name: 'nope', arguments: { action: 'x' } }, 404, 'TG_TOOL_NOT_FOUND', 'No tool is named "nope"; the tools are graph, schemas, secrets, search_tools, persisted-peoplewithcolleagues, persisted-personpage.'],
    ['an unknown action', { name: 'schemas', arguments: { action: 'list' } }, 404, 'TG_TOOL_NOT_FOUND', 'Tool schemas has no action "list"; its actions are fragment, get, search.'],
    ['invalid arguments', { name: 'schemas', arguments: { action: 'search', query: 'x', limit: 0 } }, 400, 'TG_TOOL_ARGUMENTS_INVALID', 'Invalid arguments for schemas.search (1 violation): /limit: expected an integer from 1 to 100, got 0.'],
    ['a body without arguments', { name: 'schemas' }, 400, 'TG_BAD_REQUEST', 'The body is not a tool call {name, arguments}: /arguments: expected required property "arguments", got no such property.'],
    ['arguments without action', { name: 'schemas', arguments: {} }, 400, 'TG_TOOL_ARGUMENTS_INVALID', 'Tool schemas: /action: expected one of fragment, get, search, got nothing.'],
    ['operation tool arguments its manifest refuses', { name: 'persisted-personpage', arguments: { first: 'ten' } }, 400, 'TG_TOOL_ARGUMENTS_INVALID', 'Invalid arguments for persisted-personpage (1 violation): /first: expected an integer from -2147483648 to 2147483647, got "ten".'],
    ['a body that is not JSON', '{"name":', 400, 'TG_BAD_REQUEST', 'The body is not valid JSON.'],
  ])('refuses %s with ErrorBody', async (_what, body, status, code, message) => {
    const response = await restCall(running.origin, body);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error: { code, message } });
  });

  it('refuses other methods and media types', async () => {
    const get = await fetch(`${running.origin}/mcp/tools/call`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const text = await restCall(running.origin, 'x', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect((await fetch(`${running.origin}/mcp/other`)).status).toBe(404);
  });
});

// Last: it writes to the graph, which the reads above expect at version 3 (the seed's nodes, edges and open access policy).
describe('graph.mutate', () => {
  it('runs a mutation as one batch; a stale expectedVersion is a tool error with the graph\'s message', async () => {
    const stale = await client.callTool({ name: 'graph', arguments: { action: 'mutate', graph: 'demo', query: 'mutation { createNode(label: "Topic", id: "topic-tool-test", props: {name: "Tool test"}, expectedVersion: 1) { id } }' } });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toBe('Graph "demo" is at version 3; the batch expected version 1. Nothing was changed; read again and retry.');
    const created = await client.callTool({ name: 'graph', arguments: { action: 'mutate', graph: 'demo', query: 'mutation { createNode(label: "Topic", id: "topic-tool-test", props: {name: "Tool test"}, expectedVersion: 3) { id } addEdge(src: "person-001", tgt: "topic-tool-test", type: "LIKES") { ok } }' } });
    expect(created.structuredContent, JSON.stringify(created)).toEqual({ data: { createNode: { id: 'topic-tool-test' }, addEdge: { ok: true } }, extensions: { version: 4 } });
    expectOutput('graph', 'mutate', created.structuredContent);
  });
});
