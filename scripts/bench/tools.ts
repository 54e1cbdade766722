// Tool server benchmark: node scripts/bench/tools.ts [--out FILE]
// Per-call cost of a tool call (graph.cypher: a small Cypher read on the reference graph, which the
// graph tool sends on to the graph service's /dispatch) with AUTH_TYPE=jwt (the caller's verified
// token, passed on to the graph service whose audience it is: two verified hops, both cached)
// against AUTH_TYPE=none, over the REST POST /mcp/tools/call and over MCP Streamable HTTP (the SDK
// client, one session). The peer doing the same graph work without the tool layer is POST /dispatch
// with the same Cypher. More MCP sides: the SDK 2.x client on revision 2026-07-28 (stateless),
// and a 2025-11-25 session and 2026-07-28 requests sent with the REST side's own HTTP client (the
// server's protocol cost alone). Sides alternate for ROUNDS rounds; min and median of each and of the ratios.
// A third side delegates: the tool server (jwt, ENABLE_DELEGATION) exchanges the caller's token
// (RFC 8693, cached) for one whose audience is a separate graph service's, which accepts only that
// audience; the issue's target is this side at most 1.15x the none side. Then 1,000 concurrent calls
// by a new caller, nothing cached: the IdP must see exactly one token exchange.
// Servers (`toolgraph serve` compositions) run in a child process, the load here.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph } from '../../src/serve/index.ts';
import { startIdp } from '../../test/support/idp.ts';
import { median, throughput } from './bench-stats.ts';

const args = process.argv.slice(2);
const ROUNDS = 5;
const SECONDS_PER_SIDE = 2;
const CONNECTIONS = 16;
const AUDIENCE = 'https://bench.toolgraph.test';
const GRAPH_AUDIENCE = 'https://graph.bench.toolgraph.test';
const QUERY = "MATCH (o:Organization {name: 'Acme Analytics'}) RETURN o.name AS name";
const TOOL_BODY = JSON.stringify({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: QUERY } });
const DISPATCH_BODY = JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: QUERY } } });

async function serve(discoveryUrl: string, clientId: string, clientSecret: string): Promise<void> {
  const start = (env: Record<string, string>, only?: ('graph' | 'tools')[]) => startToolgraph({
    config: resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-bench-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL: 'silent', ...env } }),
    logger: silentLogger(),
    ...(only ? { only } : {}),
  });
  const none = await start({});
  const jwt = await start({ AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: discoveryUrl, TOKEN_AUDIENCE: AUDIENCE });
  const graph = await start({ AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: discoveryUrl, TOKEN_AUDIENCE: GRAPH_AUDIENCE }, ['graph']);
  const state = mkdtempSync(join(tmpdir(), 'tg-bench-state-'));
  const delegating = await start({
    AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: discoveryUrl, TOKEN_AUDIENCE: AUDIENCE, ENABLE_DELEGATION: 'true', AUDIENCE: GRAPH_AUDIENCE, DELEGATED_SCOPES: 'kg:read',
    OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret, TOOLGRAPH_AGENT_GRAPH_URL: graph.origin, TOOLGRAPH_STATE_DIR: state, TOOLGRAPH_AUDIT_LOG: join(state, 'audit.jsonl'),
  }, ['tools']);
  process.stdout.write(`${JSON.stringify({ none: none.origin, jwt: jwt.origin, delegating: delegating.origin })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void Promise.all([none, jwt, graph, delegating].map((r) => r.close({ graceMs: 0 }))).then(() => process.exit(0)));
}

/** Calls per second with CONNECTIONS keep-alive loops for `seconds`; every answer must be 200 and no tool error. */
async function loadRest(origin: string, path: string, body: string, token: string | undefined, seconds: number, extraHeaders: Record<string, string> = {}): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const url = new URL(path, origin);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...extraHeaders };
  if (token) headers['authorization'] = `Bearer ${token}`;
  const once = () => new Promise<void>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => (res.statusCode === 200 && !text.includes('"isError"') && !text.includes('"error"') ? resolve() : reject(new Error(`HTTP ${res.statusCode} ${text.slice(0, 200)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  return loop(once, seconds, () => agent.destroy());
}

async function loop(once: () => Promise<void>, seconds: number, done: () => void): Promise<number> {
  try {
    return await throughput(once, CONNECTIONS, seconds * 1000);
  } finally {
    done();
  }
}

/**
 * fetch with a signal of its own per request, following the transport's. The SDK 1.x client passes
 * one AbortSignal to every fetch of a session, and undici keeps a listener on it per request until
 * the request is collected: past 1,500 each new one prints a MaxListenersExceededWarning with its
 * stack, which made the client side of this bench slower than the server it measures.
 */
const ownSignalFetch: typeof fetch = async (input, init) => {
  const outer = init?.signal;
  if (!outer) return fetch(input, init);
  const own = new AbortController();
  const follow = () => own.abort(outer.reason);
  outer.addEventListener('abort', follow, { once: true });
  try {
    return await fetch(input, { ...init, signal: own.signal });
  } finally {
    outer.removeEventListener('abort', follow);
  }
};

async function mcpSession(origin: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { fetch: ownSignalFetch, ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}) }));
  return client;
}

/**
 * A 2025-11-25 session opened by hand, for MCP `tools/call` sent with the REST side's own HTTP
 * client: the server's protocol cost alone, without the SDK client's (fetch, web streams, zod) on
 * the same two cores.
 */
async function rawSession(origin: string): Promise<Record<string, string>> {
  const accept = 'application/json, text/event-stream';
  const init = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-raw', version: '1' } } }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  if (init.status !== 200 || session === null) throw new Error(`initialize answered ${init.status}`);
  return { accept, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
}
const RPC_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: QUERY } } });
/** A 2026-07-28 `tools/call` as the revision sends it: the `_meta` envelope and the headers that must match the body. */
const MODERN_RPC_BODY = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'tools/call',
  params: {
    name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: QUERY },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench-raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
  },
});
const MODERN_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'graph' };

/** The SDK 2.x client pinned to revision 2026-07-28: no session, every request stateless. */
async function modernSession(origin: string): Promise<ModernClient> {
  const client = new ModernClient({ name: 'bench', version: '2' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(new URL(`${origin}/mcp`), { fetch: ownSignalFetch }));
  return client;
}

async function loadMcp(client: Client | ModernClient, seconds: number): Promise<number> {
  const once = async () => {
    const result = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: QUERY } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  return loop(once, seconds, () => undefined);
}


async function main(): Promise<void> {
  const idp = await startIdp({ defaultAudience: AUDIENCE });
  const token = await idp.mintToken({ sub: 'bench-user', scope: 'kg:read' });
  const child = spawn(process.execPath, [import.meta.filename, '--serve', idp.discoveryUrl, idp.clientId, idp.clientSecret], { stdio: ['pipe', 'pipe', 'inherit'] });
  const origins = await new Promise<{ none: string; jwt: string; delegating: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      if (buffered.includes('\n')) resolve(JSON.parse(buffered.slice(0, buffered.indexOf('\n'))) as never);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const sides = { dispatch: [] as number[], restNone: [] as number[], restJwt: [] as number[], restDelegated: [] as number[], mcpNone: [] as number[], mcpJwt: [] as number[], mcpModern: [] as number[], mcpRaw: [] as number[], mcpModernRaw: [] as number[] };
  let burst = { calls: 0, exchanges: 0, ms: 0 };
  let mcpNone: Client | undefined;
  let mcpJwt: Client | undefined;
  let mcpModern: ModernClient | undefined;
  try {
    mcpNone = await mcpSession(origins.none, undefined);
    mcpJwt = await mcpSession(origins.jwt, token);
    mcpModern = await modernSession(origins.none);
    const raw = await rawSession(origins.none);
    // Warm-up: JIT, the token's first verifications, keep-alive sockets.
    await loadRest(origins.none, '/dispatch', DISPATCH_BODY, undefined, 1);
    await loadRest(origins.none, '/mcp/tools/call', TOOL_BODY, undefined, 1);
    await loadRest(origins.jwt, '/mcp/tools/call', TOOL_BODY, token, 1);
    await loadRest(origins.delegating, '/mcp/tools/call', TOOL_BODY, token, 1);
    await loadMcp(mcpNone, 1);
    await loadMcp(mcpJwt, 1);
    await loadMcp(mcpModern, 1);
    await loadRest(origins.none, '/mcp', RPC_BODY, undefined, 1, raw);
    await loadRest(origins.none, '/mcp', MODERN_RPC_BODY, undefined, 1, MODERN_HEADERS);
    for (let round = 0; round < ROUNDS; round++) {
      sides.dispatch.push(await loadRest(origins.none, '/dispatch', DISPATCH_BODY, undefined, SECONDS_PER_SIDE));
      sides.restNone.push(await loadRest(origins.none, '/mcp/tools/call', TOOL_BODY, undefined, SECONDS_PER_SIDE));
      sides.restJwt.push(await loadRest(origins.jwt, '/mcp/tools/call', TOOL_BODY, token, SECONDS_PER_SIDE));
      sides.restDelegated.push(await loadRest(origins.delegating, '/mcp/tools/call', TOOL_BODY, token, SECONDS_PER_SIDE));
      sides.mcpNone.push(await loadMcp(mcpNone, SECONDS_PER_SIDE));
      sides.mcpJwt.push(await loadMcp(mcpJwt, SECONDS_PER_SIDE));
      sides.mcpModern.push(await loadMcp(mcpModern, SECONDS_PER_SIDE));
      sides.mcpRaw.push(await loadRest(origins.none, '/mcp', RPC_BODY, undefined, SECONDS_PER_SIDE, raw));
      sides.mcpModernRaw.push(await loadRest(origins.none, '/mcp', MODERN_RPC_BODY, undefined, SECONDS_PER_SIDE, MODERN_HEADERS));
    }
    // 1,000 concurrent calls by a caller whose delegated token nobody has yet: one exchange.
    const fresh = await idp.mintToken({ sub: 'burst-user', scope: 'kg:read' });
    const before = idp.tokenExchanges();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 1000 }, () => new Promise<number>((resolve, reject) => {
      const req = http.request(new URL('/mcp/tools/call', origins.delegating), { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${fresh}` } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(res.statusCode === 200 && !text.includes('"isError"') ? 1 : 0));
      });
      req.on('error', reject);
      req.end(TOOL_BODY);
    })));
    agent.destroy();
    burst = { calls: answers.reduce((a, b) => a + b, 0), exchanges: idp.tokenExchanges() - before, ms: performance.now() - started };
  } finally {
    await mcpNone?.close();
    await mcpJwt?.close();
    await mcpModern?.close();
    child.stdin.end();
  }
  await idp.close();
  if (burst.exchanges !== 1 || burst.calls !== 1000) process.exitCode = 1;

  const us = (perSec: number) => 1e6 / perSec;
  const ratio = (side: number[], base: number[]) => side.map((v, i) => base[i]! / v);
  const row = (measure: string, side: number[], base: number[] | undefined) => ({
    measure,
    min: us(Math.max(...side)),
    median: us(median(side)),
    ratioMin: base ? Math.min(...ratio(side, base)) : 1,
    ratioMedian: base ? median(ratio(side, base)) : 1,
  });
  const rows = [
    row('peer: POST /dispatch, the same Cypher, AUTH_TYPE=none', sides.dispatch, undefined),
    row('REST tool call, AUTH_TYPE=none (vs the peer)', sides.restNone, sides.dispatch),
    row('REST tool call, AUTH_TYPE=jwt (vs REST none)', sides.restJwt, sides.restNone),
    row('REST tool call, jwt + delegation, cached exchange (vs REST none)', sides.restDelegated, sides.restNone),
    row('MCP tools/call, AUTH_TYPE=none (vs REST none)', sides.mcpNone, sides.restNone),
    row('MCP tools/call, AUTH_TYPE=jwt (vs MCP none)', sides.mcpJwt, sides.mcpNone),
    row('MCP tools/call, 2025-11-25 session, the REST side\'s HTTP client (vs REST none)', sides.mcpRaw, sides.restNone),
    row('MCP 2026-07-28 tools/call (SDK 2.x, stateless), AUTH_TYPE=none (vs REST none)', sides.mcpModern, sides.restNone),
    row('MCP 2026-07-28 tools/call, the REST side\'s HTTP client (vs REST none)', sides.mcpModernRaw, sides.restNone),
  ];
  const table = [['measure', 'min µs/call', 'median µs/call', 'ratio (min)', 'ratio (median)']];
  for (const r of rows) table.push([r.measure, r.min.toFixed(1), r.median.toFixed(1), `${r.ratioMin.toFixed(2)}x`, `${r.ratioMedian.toFixed(2)}x`]);
  const widths = table[0]!.map((_, i) => Math.max(...table.map((cells) => cells[i]!.length)));
  process.stdout.write(`${CONNECTIONS} concurrent calls, ${ROUNDS} rounds of ${SECONDS_PER_SIDE} s per side, sides alternating; jwt passes the caller's token to the graph service (two cached verifications); targets: jwt with cached delegation at most 1.15x none, MCP tools/call at most 2x REST\n`);
  for (const [i, cells] of table.entries()) {
    process.stdout.write(`${cells.map((c, j) => c.padEnd(widths[j]!)).join('  ')}\n`);
    if (i === 0) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
  process.stdout.write(`1,000 concurrent calls by one new caller: ${burst.calls} succeeded in ${Math.round(burst.ms)} ms; token exchanges at the IdP: ${burst.exchanges} (must be 1)\n`);
  process.stdout.write(`calls/s per round: ${Object.entries(sides).map(([name, values]) => `${name} ${values.map(Math.round).join(' ')}`).join('; ')}\n`);
  const outIndex = args.indexOf('--out');
  if (outIndex >= 0 && args[outIndex + 1]) {
    writeFileSync(args[outIndex + 1]!, `${JSON.stringify({ connections: CONNECTIONS, rounds: ROUNDS, secondsPerSide: SECONDS_PER_SIDE, callsPerSec: sides, rows, burst, targetRatio: 1.15 }, null, 2)}\n`);
  }
}

if (args[0] === '--serve') await serve(args[1]!, args[2]!, args[3]!);
else await main();
