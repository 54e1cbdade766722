/**
 * Issue 28, F4: 700 connections each sending all but the last byte of a 4 MiB POST /mcp body took
 * the server's resident set from 180 MB to 3.0 GB while /healthz said "ok": every body was held
 * until it ended (node:http's whole-request deadline was 300 s), nothing counted the bodies held
 * across connections, and the overload monitor read only the V8 heap, which a body's buffers are
 * outside of. Any valid token sufficed under AUTH_TYPE=jwt. Now the bodies being received count
 * against one allowance (TOOLGRAPH_BODY_MEMORY_BYTES: past it 503 TG_BODY_MEMORY_FULL with
 * Retry-After), each must arrive within TOOLGRAPH_BODY_TIMEOUT_MS (else 408 TG_BODY_TIMEOUT, the
 * connection closed), and the monitor reads the resident set (TOOLGRAPH_OVERLOAD_RSS_BYTES). Driven
 * through POST /mcp under AUTH_TYPE=jwt with a real IdP's token, the server in a child process whose
 * resident set the test reads.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { postHead, RawRequest, startBodyTarget, watchPeakRss, type BodyTarget, type RawAnswer } from './bodies/body-target.ts';

const MIB = 1024 * 1024;
const AUDIENCE = 'https://toolgraph.test';
/** The largest body /mcp takes (the MCP SDK's limit). */
const BODY_BYTES = 4 * MIB;
/** Slow bodies of 480 MiB in all: the finding's shape at a sixth of its count. */
const CONNECTIONS = 120;
const MEMORY_BYTES = 32 * MIB;
const TIMEOUT_MS = 2000;

let idp: TestIdp;
let token: string;
beforeAll(async () => {
  idp = await startIdp({ defaultAudience: AUDIENCE });
  token = await idp.mintToken({ sub: 'mallory', scope: 'openid kg:read' });
});
afterAll(() => idp.close());

let target: BodyTarget | undefined;
const requests: RawRequest[] = [];
afterEach(async () => {
  for (const request of requests.splice(0)) request.destroy();
  await target?.close();
  target = undefined;
});

function jwtServer(env: Record<string, string>): Promise<BodyTarget> {
  return startBodyTarget({ AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOKEN_AUDIENCE: AUDIENCE, ...env });
}

/** An MCP initialize `bytes` long (padded in its params), as JSON. */
function initializeBody(bytes: number): Buffer {
  const prefix = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f4","version":"1"},"pad":"';
  const suffix = '"}}';
  return Buffer.from(`${prefix}${'p'.repeat(bytes - prefix.length - suffix.length)}${suffix}`);
}

/** `count` connections, each sending the head and all but the last byte of `body` to POST /mcp with the token. */
function slowBodies(origin: string, body: Buffer, count: number): RawRequest[] {
  const head = postHead(origin, '/mcp', { Authorization: `Bearer ${token}` }, body.length);
  const opened = Array.from({ length: count }, () => {
    const request = new RawRequest(origin, head);
    request.write(body.subarray(0, body.length - 1));
    return request;
  });
  requests.push(...opened);
  return opened;
}

async function health(origin: string): Promise<{ status: number; body: { status: string; overload?: { reason: string } } }> {
  const res = await fetch(`${origin}/healthz`);
  return { status: res.status, body: (await res.json()) as { status: string; overload?: { reason: string } } };
}

function errorOf(answer: RawAnswer | undefined): { code?: string; details?: Record<string, unknown> } {
  return answer === undefined ? {} : ((JSON.parse(answer.body) as { error: { code: string; details?: Record<string, unknown> } }).error);
}

describe('F4: slow request bodies on POST /mcp under AUTH_TYPE=jwt', () => {
  it('hold at most TOOLGRAPH_BODY_MEMORY_BYTES: the bodies past it are refused with 503 and Retry-After, those held are cut at TOOLGRAPH_BODY_TIMEOUT_MS', async () => {
    const t = await jwtServer({ TOOLGRAPH_BODY_MEMORY_BYTES: String(MEMORY_BYTES), TOOLGRAPH_BODY_TIMEOUT_MS: String(TIMEOUT_MS) });
    target = t;
    const before = t.rss();
    const heldBefore = await t.heldBuffers();
    const peak = watchPeakRss(t);
    const started = performance.now();
    const slow = slowBodies(t.origin, initializeBody(BODY_BYTES), CONNECTIONS);
    // What the bodies hold (live buffers after a GC) while they wait for their last byte.
    let held = 0;
    const answering = Promise.all(slow.map((request) => request.answer(TIMEOUT_MS + 4000)));
    while (performance.now() - started < TIMEOUT_MS - 300) {
      held = Math.max(held, (await t.heldBuffers()) - heldBefore);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const answers = await answering;
    const elapsed = performance.now() - started;
    const growth = peak.stop() - before;
    const refused = answers.filter((a) => a?.status === 503);
    const cut = answers.filter((a) => a?.status === 408);
    console.log(`F4: ${CONNECTIONS} x ${BODY_BYTES} bytes but the last: held ${(held / MIB).toFixed(0)} MiB of buffers, resident set +${(growth / MIB).toFixed(0)} MiB at most; ${refused.length} refused 503, ${cut.length} cut 408, ${answers.filter((a) => a === undefined).length} unanswered after ${Math.round(elapsed)} ms`);

    expect(t.alive()).toBe(true);
    // The allowance, what node:http buffers per connection before a route reads (its 64 KiB
    // high-water mark and one socket read) while the token is verified, and chunks in flight (on a
    // busy machine 32-53 MiB in all were measured; the old code held every body, 285-294 MiB).
    expect(held).toBeLessThan(MEMORY_BYTES + CONNECTIONS * 128 * 1024 + 48 * MIB);
    // The resident set also counts the refused bodies' bytes node:http reads and drops, until they are collected.
    expect(growth).toBeLessThan(MEMORY_BYTES + 160 * MIB);
    // Every body got an answer: refused for want of memory, or cut at its deadline.
    expect(refused.length + cut.length).toBe(CONNECTIONS);
    expect(refused.length).toBeGreaterThan(0);
    expect(cut.length).toBeGreaterThan(0);
    expect(refused[0]!.headers['retry-after']).toBe('1');
    expect(errorOf(refused[0])).toMatchObject({ code: 'TG_BODY_MEMORY_FULL', details: { limit: 'bodyMemoryBytes', max: MEMORY_BYTES, setting: 'TOOLGRAPH_BODY_MEMORY_BYTES' } });
    expect(cut[0]!.headers['connection']).toBe('close');
    expect(errorOf(cut[0])).toMatchObject({ code: 'TG_BODY_TIMEOUT', details: { limit: 'bodyTimeoutMs', max: TIMEOUT_MS, setting: 'TOOLGRAPH_BODY_TIMEOUT_MS', received: BODY_BYTES - 1, declared: BODY_BYTES } });

    // Once they are gone, an honest client is served.
    expect((await health(t.origin)).status).toBe(200);
    const res = await fetch(`${t.origin}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initializeBody(1000).toString(),
    });
    expect(res.status).toBe(200);
  }, 30_000);

  it('past TOOLGRAPH_OVERLOAD_RSS_BYTES the process sheds new work with 503 TG_OVERLOADED, though its heap is calm', async () => {
    // Bodies may take as much as they like here: the resident-set watermark is what stops them.
    const t = await jwtServer({ TOOLGRAPH_BODY_MEMORY_BYTES: String(1024 * MIB), TOOLGRAPH_BODY_TIMEOUT_MS: '20000' });
    target = t;
    const watermark = t.rss() + 128 * MIB;
    await t.close();
    const w = await jwtServer({ TOOLGRAPH_BODY_MEMORY_BYTES: String(1024 * MIB), TOOLGRAPH_BODY_TIMEOUT_MS: '20000', TOOLGRAPH_OVERLOAD_RSS_BYTES: String(watermark) });
    target = w;
    expect((await health(w.origin)).status).toBe(200);
    slowBodies(w.origin, initializeBody(BODY_BYTES), CONNECTIONS);
    const deadline = performance.now() + 10_000;
    let seen = await health(w.origin);
    while (seen.status === 200 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await health(w.origin);
    }
    console.log(`F4 RSS watermark ${(watermark / MIB).toFixed(0)} MiB: resident set ${(w.rss() / MIB).toFixed(0)} MiB, /healthz ${seen.status} ${seen.body.status}`);
    expect(seen).toMatchObject({ status: 503, body: { status: 'overloaded', overload: { reason: 'rss' } } });
    const shed = await fetch(`${w.origin}/mcp/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'schemas', arguments: { action: 'search', query: 'x' } }),
    });
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(((await shed.json()) as { error: { code: string; details: { setting: string } } }).error).toMatchObject({ code: 'TG_OVERLOADED', details: { reason: 'rss', setting: 'TOOLGRAPH_OVERLOAD_RSS_BYTES' } });
  }, 40_000);

  it('on the sign-in proxy\'s routes (open to anyone), a slow form is cut at TOOLGRAPH_BODY_TIMEOUT_MS as well', async () => {
    const t = await startBodyTarget({ AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: 'toolgraph-proxy', OIDC_CLIENT_SECRET: 'proxy-secret', TOOLGRAPH_BODY_TIMEOUT_MS: String(TIMEOUT_MS) });
    target = t;
    const form = Buffer.from(`grant_type=authorization_code&client_id=nobody&code=${'c'.repeat(50_000)}`);
    const request = new RawRequest(t.origin, postHead(t.origin, '/token', { 'Content-Type': 'application/x-www-form-urlencoded' }, form.length));
    requests.push(request);
    request.write(form.subarray(0, form.length - 1));
    const started = performance.now();
    const answer = await request.answer(TIMEOUT_MS + 4000);
    console.log(`F4 /token: ${form.length} bytes but the last: ${answer?.status ?? 'no answer'} after ${Math.round(performance.now() - started)} ms`);
    expect(answer?.status).toBe(408);
    expect(answer?.headers['connection']).toBe('close');
    expect(errorOf(answer)).toMatchObject({ code: 'TG_BODY_TIMEOUT', details: { received: form.length - 1, declared: form.length, setting: 'TOOLGRAPH_BODY_TIMEOUT_MS' } });
    // A whole form is read and reaches the SDK's handler, which names the form's client.
    const res = await fetch(`${t.origin}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'Invalid client_id' });
  }, 30_000);
});
