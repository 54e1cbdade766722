import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAIN_FACTOR, jsonMediaTypeRefusal } from '../../src/http/index.ts';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { startServe } from '../tools/support.ts';

let running: RunningToolgraph;

beforeAll(async () => {
  running = await startServe();
});
afterAll(async () => {
  await running?.close();
});

/** Every route that reads a JSON body, with its limit and what its cut-off does to a body past it. */
const ROUTES = [
  { route: 'POST /dispatch', method: 'POST', path: '/dispatch', limit: 1024 * 1024, overflow: 'destroy' },
  { route: 'PUT /graphs/{graph}/access', method: 'PUT', path: '/graphs/demo/access', limit: 256 * 1024, overflow: 'destroy' },
  { route: 'PUT /graphs/{graph}/namespace', method: 'PUT', path: '/graphs/demo/namespace', limit: 4 * 1024, overflow: 'destroy' },
  { route: 'POST /graphql/{graph}', method: 'POST', path: '/graphql/demo', limit: 1024 * 1024, overflow: 'drain' },
  { route: 'POST /mcp/tools/call', method: 'POST', path: '/mcp/tools/call', limit: 1024 * 1024, overflow: 'destroy' },
  { route: 'POST /mcp', method: 'POST', path: '/mcp', limit: 4 * 1024 * 1024, overflow: 'destroy' },
] as const;

type Route = (typeof ROUTES)[number];

/** The code and message of a refusal, from ErrorBody or (GraphQL) the errors array. */
async function refusalOf(res: Response): Promise<{ status: number; code: unknown; message: unknown }> {
  const body = (await res.json()) as { error?: { code: string; message: string }; errors?: { message: string; extensions: { code: string } }[] };
  const error = body.error ?? { code: body.errors?.[0]?.extensions.code, message: body.errors?.[0]?.message };
  return { status: res.status, code: error.code, message: error.message };
}

function send(route: Route, body: Uint8Array<ArrayBuffer> | string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Response> {
  return fetch(`${running.origin}${route.path}`, {
    method: route.method,
    // The MCP transport answers 406 unless both are acceptable; the others take either.
    headers: { accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
  });
}

/**
 * Writes `total` bytes of a JSON string in 64 KiB chunks without a Content-Length (chunked), and
 * reports how the server ended it: a status, or the connection cut while the body was still going.
 */
function sendChunked(route: Route, total: number): Promise<{ status?: number; code?: string; cutAfter?: number }> {
  return new Promise((resolve) => {
    const url = new URL(`${running.origin}${route.path}`);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: route.method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
    let written = 0;
    let ended = false;
    req.on('response', (res) => {
      ended = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code: string }; errors?: { extensions: { code: string } }[] };
        resolve({ status: res.statusCode!, code: body.error?.code ?? body.errors?.[0]?.extensions.code ?? '' });
        req.destroy();
      });
    });
    req.on('error', () => {
      if (!ended) resolve({ cutAfter: written });
      ended = true;
    });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = (): void => {
      if (ended) return;
      if (written === 0) {
        req.write('"');
        written = 1;
      }
      while (!ended && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!ended) req.end('"');
    };
    pump();
  });
}

describe.each(ROUTES)('$route reads its body with the one JSON reader', (route) => {
  it('refuses a body that is not JSON: 400 TG_BAD_REQUEST', async () => {
    expect(await refusalOf(await send(route, '{"name":'))).toEqual({ status: 400, code: 'TG_BAD_REQUEST', message: 'The body is not valid JSON.' });
  });

  it('refuses bytes that are not UTF-8 rather than decoding them leniently: 400 TG_BAD_REQUEST', async () => {
    // {"name":"\xff"}: valid JSON once a lenient decoder has turned 0xff into U+FFFD.
    const body = new Uint8Array([...new TextEncoder().encode('{"name":"'), 0xff, ...new TextEncoder().encode('"}')]);
    expect(await refusalOf(await send(route, body))).toEqual({ status: 400, code: 'TG_BAD_REQUEST', message: 'The body is not valid UTF-8.' });
  });

  it('drops a leading byte-order mark before parsing', async () => {
    // `[]` parses (each route then refuses an array in its own words); with the mark kept it would not.
    const withMark = await refusalOf(await send(route, new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('[]')])));
    const without = await refusalOf(await send(route, '[]'));
    expect(withMark).toEqual(without);
    expect(without.message).not.toBe('The body is not valid JSON.');
  });

  it('refuses a charset other than UTF-8, naming it: 415 TG_UNSUPPORTED_MEDIA_TYPE', async () => {
    const refusal = await refusalOf(await send(route, '{}', { 'content-type': 'application/json; charset=iso-8859-1' }));
    expect(refusal).toEqual({ status: 415, code: 'TG_UNSUPPORTED_MEDIA_TYPE', message: `${route.route} reads JSON in UTF-8 only; the Content-Type names charset "iso-8859-1". Send the body in UTF-8 (charset=utf-8, or no charset).` });
  });

  it('refuses a declared length past the limit before reading: 413 TG_PAYLOAD_TOO_LARGE', async () => {
    const refusal = await refusalOf(await send(route, `"${'x'.repeat(route.limit - 1)}"`));
    expect(refusal).toEqual({ status: 413, code: 'TG_PAYLOAD_TOO_LARGE', message: `Request body is ${route.limit + 1} bytes; this route accepts at most ${route.limit}.` });
  });

  it('stops a chunked body that grows past the limit', async () => {
    // 16 MiB past what is read: more than loopback socket buffers hold, so a cut shows before the end.
    const read = route.overflow === 'drain' ? route.limit * DRAIN_FACTOR : route.limit;
    const total = read + 16 * 1024 * 1024;
    expect((await sendChunked(route, total)).cutAfter).toBeLessThan(total);
    // A drained body within DRAIN_FACTOR times the limit is read to its end, then refused.
    if (route.overflow === 'drain') expect(await sendChunked(route, 2 * route.limit)).toEqual({ status: 413, code: 'TG_PAYLOAD_TOO_LARGE' });
  });
});

describe('the media type', () => {
  it.each<[string | undefined, string | undefined]>([
    ['application/json', undefined],
    ['application/json; charset=utf-8', undefined],
    ['Application/JSON; Charset="UTF-8"', undefined],
    ['application/json;charset=utf-8;profile=x', undefined],
    [undefined, 'POST /x accepts only Content-Type: application/json (UTF-8); got none.'],
    ['text/plain', 'POST /x accepts only Content-Type: application/json (UTF-8); got "text/plain".'],
    ['application/jsonx', 'POST /x accepts only Content-Type: application/json (UTF-8); got "application/jsonx".'],
    ['application/json; charset=utf-16', 'POST /x reads JSON in UTF-8 only; the Content-Type names charset "utf-16". Send the body in UTF-8 (charset=utf-8, or no charset).'],
    ['application/json; charset=utf8', 'POST /x reads JSON in UTF-8 only; the Content-Type names charset "utf8". Send the body in UTF-8 (charset=utf-8, or no charset).'],
  ])('%j', (contentType, message) => {
    const refusal = jsonMediaTypeRefusal(contentType, 'POST /x');
    expect(refusal?.message).toBe(message);
    if (refusal !== undefined) expect(refusal.code).toBe('TG_UNSUPPORTED_MEDIA_TYPE');
  });

  it.each(ROUTES.filter((r) => r.path !== '/mcp'))('$route refuses a request without Content-Type: 415 TG_UNSUPPORTED_MEDIA_TYPE', async (route) => {
    expect(await refusalOf(await send(route, '{}', {}))).toEqual({ status: 415, code: 'TG_UNSUPPORTED_MEDIA_TYPE', message: `${route.route} accepts only Content-Type: application/json (UTF-8); got none.` });
  });
});
