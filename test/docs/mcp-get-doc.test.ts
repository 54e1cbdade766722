// docs/tools.md says what `GET /mcp` answers: 405 only within a session; without a session id 400,
// with an unknown one 404. This asks a running server each case and wants the doc to say what it got.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { startServe } from '../tools/support.ts';

const doc = readFileSync(new URL('../../docs/tools.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
let running: RunningToolgraph;
let sessionId: string;

beforeAll(async () => {
  running = await startServe();
  const init = await fetch(`${running.origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'docs', version: '1' } } }),
  });
  expect(init.status).toBe(200);
  sessionId = init.headers.get('mcp-session-id')!;
  expect(sessionId).toBeTruthy();
});
afterAll(async () => {
  await running?.close();
});

const get = (headers: Record<string, string>) => fetch(`${running.origin}/mcp`, { headers: { accept: 'text/event-stream', ...headers } });

describe('docs/tools.md on GET /mcp', () => {
  it('within a session: 405 with Allow: POST, DELETE, as the doc says', async () => {
    const response = await get({ 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, DELETE');
    expect(doc).toContain("`GET /mcp` with a session's `Mcp-Session-Id` answers 405 with `Allow: POST, DELETE`");
  });

  it('without a session id: 400, not 405, as the doc says', async () => {
    expect((await get({})).status).toBe(400);
    expect(doc).toContain('Without `Mcp-Session-Id` it answers 400');
  });

  it('with an unknown session id: 404, for GET as for POST, as the doc says', async () => {
    expect((await get({ 'mcp-session-id': 'no-such-session' })).status).toBe(404);
    const post = await fetch(`${running.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(post.status).toBe(404);
    expect(doc).toContain('with an id that ended or never was, 404, as every method');
  });

  it('never says GET /mcp answers 405 without naming the session', () => {
    expect(doc).not.toMatch(/`GET \/mcp` answers 405/);
  });
});
