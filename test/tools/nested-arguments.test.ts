import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { restCall, startServe } from './support.ts';

/**
 * Issue 28: tool arguments nested a few thousand deep answered "Internal server error." (the
 * validators and the graph tool's way to the graph service recurse, and overflowed the stack),
 * where /dispatch refuses a body nested past 100 levels with 400 before anything recursive reads
 * it. The tool server's two surfaces now refuse such a body the same way, unparsed.
 */

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const DEPTH = 5000;
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** The graph tool's cypher action with a parameter nested `depth` deep (the arguments are at level 2 of the call, 3 of an MCP message). */
const cypherArguments = (depth: number) => `{"action":"cypher","graph":"demo","query":"RETURN 1 AS one","params":{"x":${deep(depth)}}}`;

let running: RunningToolgraph;
let lines: string[];
let session: string;

beforeAll(async () => {
  const captured = captureLogger('trace');
  lines = captured.lines;
  running = await startServe({ logger: captured.logger });
  const init = await fetch(`${running.origin}/mcp`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  session = init.headers.get('mcp-session-id')!;
  await init.text();
});
afterAll(() => running?.close());

/** A raw MCP tools/call on the open session (the SDK client itself cannot serialise such arguments). */
function mcpToolsCall(name: string, args: string): Promise<Response> {
  return fetch(`${running.origin}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`,
  });
}

/** Where the first bracket past level 100 is in `text` (the offset the refusal names). */
const offsetPast100 = (text: string) => {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '[' || text[i] === '{') depth++;
    if (depth > 100) return i;
    if (text[i] === ']' || text[i] === '}') depth--;
  }
  return -1;
};

describe('nested tool arguments answer 400, as /dispatch does (issue 28)', () => {
  it(`POST /mcp/tools/call with arguments ${DEPTH} deep: 400 TG_BAD_REQUEST naming the limit, never "Internal server error."`, async () => {
    const body = `{"name":"graph","arguments":${cypherArguments(DEPTH)}}`;
    const res = await restCall(running.origin, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'TG_BAD_REQUEST',
        message: `The tool call nests arrays and objects deeper than 100 levels (at character ${offsetPast100(body) + 1}); at most 100 are accepted.`,
        details: { limit: 100, offset: offsetPast100(body) },
      },
    });
  });

  it(`MCP tools/call with arguments ${DEPTH} deep: 400 TG_BAD_REQUEST naming the limit, before the SDK reads the message`, async () => {
    for (const [name, args] of [['graph', cypherArguments(DEPTH)], ['schemas', `{"action":"search","query":"x","extra":${deep(DEPTH)}}`]] as const) {
      const res = await mcpToolsCall(name, args);
      expect(res.status, name).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
      expect(body.error.code).toBe('TG_BAD_REQUEST');
      expect(body.error.message).toMatch(/^The MCP message nests arrays and objects deeper than 100 levels \(at character \d+\); at most 100 are accepted\.$/);
    }
    // The session goes on.
    const ok = await mcpToolsCall('graph', cypherArguments(3));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"structuredContent":{"columns":["one"],"rows":[[1]]');
  });

  it('/dispatch answers a body as deep with the same refusal under its own code, and nothing was logged as a fault', async () => {
    const res = await fetch(`${running.origin}/dispatch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"id":1,"graph":"demo","method":{"Cypher":{"query":"RETURN 1","params":{"x":${deep(DEPTH)}}}}}`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'TG_REQUEST_INVALID',
      message: expect.stringMatching(/^The body nests arrays and objects deeper than 100 levels \(at character \d+\); at most 100 are accepted\.$/),
    });
    expect(lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });
});
