import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';

/**
 * Issue 18 item 3, end to end: the real `toolgraph serve` (a child process) with the OTEL_* variables
 * pointing at an OTLP/HTTP receiver started here, oidc-provider as the IdP with RFC 8693 token
 * exchange, and the official MCP SDK client making ONE tool call (graph.query with delegation: the
 * tool server exchanges the caller's token, then calls the graph service's /dispatch over HTTP).
 */
const ROOT = new URL('../..', import.meta.url);
const SERVER = 2;
const CLIENT = 3;
const QUERY = '{ Organization(first: 1) { name } }';
/** The caller's own trace context, sent with the tools/call request only. */
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`;

interface Served {
  child: ChildProcess;
  origin: string;
  output: () => string;
}

/** `toolgraph serve` in a child process, as an operator runs it; resolves once it listens. */
async function serve(env: Record<string, string>, preload: string[] = []): Promise<Served> {
  const home = mkdtempSync(join(tmpdir(), 'tg-tracing-'));
  const child = spawn(process.execPath, [...preload, 'src/cli/toolgraph.ts', 'serve', '--port', '0', '--persistence', 'memory'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), LOG_LEVEL: 'warn', TOOLGRAPH_STATE_DIR: join(home, 'state'), TOOLGRAPH_AUDIT_LOG: join(home, 'audit.jsonl'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /toolgraph listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('/healthz')) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${output}`)));
  });
  return { child, origin, output: () => output };
}

async function stop(served: Served | undefined): Promise<number | null> {
  if (served === undefined || served.child.exitCode !== null) return served?.child.exitCode ?? null;
  served.child.kill('SIGTERM');
  const [code] = (await once(served.child, 'exit')) as [number | null];
  return code;
}

let idp: TestIdp;
let receiver: OtlpReceiver;
let traced: Served;
let callerToken: string;
let result: Awaited<ReturnType<Client['callTool']>>;

beforeAll(async () => {
  [idp, receiver] = await Promise.all([startIdp(), startOtlpReceiver()]);
  traced = await serve({
    AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret,
    ENABLE_DELEGATION: 'true', AUDIENCE: 'https://api.elsewhere.test',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'toolgraph-under-test', OTEL_BSP_SCHEDULE_DELAY: '50',
  });
  callerToken = await idp.mintToken({ sub: 'traced-caller', scope: 'kg:read', audience: traced.origin });
  // The caller's traceparent goes with the tools/call request alone, so initialize's traces are the server's own.
  const fetchWithTrace: typeof fetch = (input, init) => {
    const isCall = typeof init?.body === 'string' && init.body.includes('"tools/call"');
    if (!isCall) return fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', TRACEPARENT);
    return fetch(input, { ...init, headers });
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${traced.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${callerToken}` } }, fetch: fetchWithTrace });
  const client = new Client({ name: 'toolgraph-tracing-test', version: '1.0.0' });
  await client.connect(transport);
  result = await client.callTool({ name: 'graph', arguments: { action: 'query', graph: 'demo', query: QUERY } });
  await client.close();
  // Everything of the call's trace, down to the graph service's execute span, exported.
  await receiver.waitFor((spans) => spans.some((s) => s.traceId === CALLER_TRACE_ID && s.name === 'graphql.execute')
    && spans.some((s) => s.traceId === CALLER_TRACE_ID && s.name === 'POST tools' && s.parentSpanId === CALLER_SPAN_ID));
}, 60_000);

afterAll(async () => {
  await stop(traced);
  await receiver?.close();
  await idp?.close();
});

function one(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name), `exactly one ${name} span`).toEqual([name]);
  return found[0]!;
}

describe('one MCP tool call with delegation, traced through the real server', () => {
  it('the call succeeded, with a token exchange at the IdP', () => {
    expect(result.isError, JSON.stringify(result)).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ data: { Organization: [{ name: expect.any(String) }] } });
    expect(idp.exchanges).toEqual([{ sub: 'traced-caller', audience: traced.origin, scope: 'kg:read' }]);
  });

  it('yields one trace, under the caller\'s traceparent: tool call → token exchange → graph request, each parent to the next', () => {
    const trace = receiver.spans.filter((s) => s.traceId === CALLER_TRACE_ID);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    // The tool server's request span continues the caller's trace: its parent is the caller's span.
    const toolsRequest = one(trace, 'POST tools');
    expect(toolsRequest).toMatchObject({ kind: SERVER, parentSpanId: CALLER_SPAN_ID, attributes: { 'http.request.method': 'POST', 'http.response.status_code': 200, 'toolgraph.service': 'tools' } });
    const tool = one(trace, 'execute_tool graph');
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'graph', 'toolgraph.tool.action': 'query' });
    expect(tool.attributes['error.type']).toBeUndefined();
    // The tool span sits under the request span (through the MCP transport, however deep).
    let up = byId.get(tool.parentSpanId);
    while (up !== undefined && up !== toolsRequest) up = byId.get(up.parentSpanId);
    expect(up).toBe(toolsRequest);
    const exchange = one(trace, 'token exchange');
    expect(exchange).toMatchObject({ kind: CLIENT, parentSpanId: tool.spanId });
    // The downstream call to the graph service: a client span under the tool, sent with its traceparent.
    const call = trace.find((s) => s.kind === CLIENT && s.name === 'POST' && s.parentSpanId === tool.spanId);
    expect(call?.attributes).toMatchObject({ 'http.request.method': 'POST', 'server.address': '127.0.0.1', 'http.response.status_code': 200, 'toolgraph.downstream.agent': 'graph' });
    // The exchange finished before the call went out (the call carries the delegated token). Two
    // spans' times agree only to a millisecond: the OpenTelemetry SDK anchors each span on its own
    // Date.now() (whole milliseconds) and measures from there with performance.now().
    const SPAN_CLOCK_RESOLUTION_NS = 1_000_000n;
    expect(exchange.endTimeUnixNano <= call!.startTimeUnixNano + SPAN_CLOCK_RESOLUTION_NS, `exchange ended ${exchange.endTimeUnixNano - call!.startTimeUnixNano} ns after the call started`).toBe(true);
    // The graph service's request span is the client span's child: the traceparent crossed the wire.
    const graphRequest = one(trace, 'POST graph');
    expect(graphRequest).toMatchObject({ kind: SERVER, parentSpanId: call!.spanId, attributes: { 'toolgraph.service': 'graph', 'http.response.status_code': 200 } });
    // Under it: the delegated token's verification, then GraphQL's parse, validate and execute.
    for (const name of ['verify token', 'graphql.parse', 'graphql.validate', 'graphql.execute']) {
      let span: ReceivedSpan | undefined = one(trace, name);
      while (span !== undefined && span !== graphRequest) span = byId.get(span.parentSpanId);
      expect(span, `${name} under the graph request`).toBe(graphRequest);
    }
    expect(one(trace, 'graphql.execute').attributes).toMatchObject({ 'graphql.operation.type': 'query' });
    // The call's spans are in no other trace, and no span of the call's trace is parentless but the caller's.
    expect(receiver.spans.filter((s) => s.name === 'execute_tool graph' && s.traceId !== CALLER_TRACE_ID)).toEqual([]);
    expect(trace.filter((s) => !byId.has(s.parentSpanId)).map((s) => s.name)).toEqual(['POST tools']);
  });

  it('names the service from OTEL_SERVICE_NAME', () => {
    expect(receiver.resources.length).toBeGreaterThan(0);
    for (const resource of receiver.resources) expect(resource).toMatchObject({ 'service.name': 'toolgraph-under-test', 'service.version': expect.any(String) });
  });

  it('exports no token, secret, graph name or document: not as an attribute, not anywhere in the exported text', () => {
    const everything = receiver.bodies.join('\n');
    for (const forbidden of [callerToken, idp.clientSecret, QUERY, 'Organization', '"demo"', 'traced-caller']) expect(everything).not.toContain(forbidden);
    // Any JWT at all (the delegated token included, which this test never sees): header.payload.
    expect(everything).not.toMatch(/eyJ[\w-]{4,}\.[\w-]{4,}/);
    for (const span of receiver.spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        expect(String(value), `${span.name} ${key}`).not.toMatch(/bearer|demo|Organization/i);
      }
    }
  });
});

describe('the graph service alone: Cypher statements and failures', () => {
  it('a /dispatch request with a caller\'s traceparent: its server span, then a cypher span saying whether it writes; a refused statement fails its span with the code', async () => {
    const token = await idp.mintToken({ sub: 'cypher-caller', scope: 'kg:read', audience: traced.origin });
    const send = async (traceId: string, query: string) => {
      const response = await fetch(`${traced.origin}/dispatch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${CALLER_SPAN_ID}-01` },
        body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query } } }),
      });
      return (await response.json()) as { result?: unknown; error?: { code: string } };
    };
    const good = `${'a'.repeat(31)}1`;
    const bad = `${'b'.repeat(31)}2`;
    expect((await send(good, 'MATCH (o:Organization) RETURN count(o) AS n')).result).toBeDefined();
    const refused = await send(bad, 'MATCH (o:Organization RETURN o');
    expect(refused.error?.code).toMatch(/^TG_/);
    await receiver.waitFor((spans) => [good, bad].every((id) => spans.some((s) => s.traceId === id && s.name === 'POST graph')));
    const cypherOf = (traceId: string) => {
      const trace = receiver.spans.filter((s) => s.traceId === traceId);
      const request = one(trace, 'POST graph');
      expect(request.parentSpanId).toBe(CALLER_SPAN_ID);
      const cypher = one(trace, 'cypher');
      expect(cypher.parentSpanId).toBe(request.spanId);
      return cypher;
    };
    expect(cypherOf(good).attributes).toEqual({ 'toolgraph.cypher.writes': false });
    const failed = cypherOf(bad);
    expect(failed.attributes).toEqual({ 'error.type': refused.error!.code });
    expect(failed.status).toMatchObject({ code: 2, message: refused.error!.code });
  });
});

describe('tracing off (no OTEL_* variables)', () => {
  it('serves requests without loading the OpenTelemetry SDK (only the API package, which prom-client loads)', async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'tg-tracing-modules-')), 'modules.txt');
    const plain = await serve({ TOOLGRAPH_RECORD_MODULES: record }, ['--import', './test/support/record-modules.ts']);
    try {
      const answer = await fetch(`${plain.origin}/graphql/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
      expect(answer.status).toBe(200);
      const dispatched = await fetch(`${plain.origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: 'RETURN 1 AS one' } } }) });
      expect(dispatched.status).toBe(200);
    } finally {
      expect(await stop(plain)).toBe(0);
    }
    const loaded = readFileSync(record, 'utf8').split('\n');
    // The recorder saw the server's own modules (so the list is real), and no OpenTelemetry SDK module.
    // @opentelemetry/api alone is allowed: prom-client (the metrics) requires it when it is installed,
    // for exemplars; it is the no-op API, not the SDK, exporter or propagator that tracing loads.
    expect(loaded.some((url) => url.includes('/src/observability/tracing/start-tracing.ts'))).toBe(true);
    expect(loaded.filter((url) => (url.includes('/node_modules/@opentelemetry/') && !url.includes('/node_modules/@opentelemetry/api/')) || url.includes('/otel-tracing.ts'))).toEqual([]);
  }, 60_000);
});
