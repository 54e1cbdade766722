import { afterEach, describe, expect, it } from 'vitest';
import { routeOf, startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { sendJson } from '../../src/http/index.ts';

function service(name: string, prefixes: string[], fail?: Error): HttpService {
  return {
    name,
    prefixes,
    entryPath: prefixes[0]!,
    handle(req, res) {
      if (fail) throw fail;
      sendJson(res, 200, { service: name, url: req.url });
    },
  };
}

let host: RunningHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('routeOf', () => {
  const services = [service('a', ['/schemas']), service('b', ['/schemas/special', '/dispatch'])];
  it.each([
    ['/schemas', 'a'],
    ['/schemas/abc', 'a'],
    ['/schemas/special', 'b'],
    ['/schemas/special/x', 'b'],
    ['/schemasx', undefined],
    ['/dispatch', 'b'],
    ['/dispatch/', 'b'],
    ['/', undefined],
  ])('%s → %s', (path, name) => {
    expect(routeOf(services, path)?.name).toBe(name);
  });
});

describe('startHost', () => {
  it('serves every service on one port, /healthz, and documented 404/405/500 bodies', async () => {
    host = await startHost({
      services: [service('one', ['/one']), service('boom', ['/boom'], new Error('secret internals'))],
      logger: silentLogger(),
      host: '127.0.0.1',
      port: 0,
    });
    expect(host.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${host.origin}/one/x?y=1`)).json()).toEqual({ service: 'one', url: '/one/x?y=1' });
    expect(await (await fetch(`${host.origin}/healthz`)).json()).toEqual({ status: 'ok', services: ['one', 'boom'] });

    const missing = await fetch(`${host.origin}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'TG_NOT_FOUND', message: 'No route for GET /nope.' } });

    const post = await fetch(`${host.origin}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');

    const boom = await fetch(`${host.origin}/boom`);
    expect(boom.status).toBe(500);
    const body = (await boom.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({ code: 'TG_INTERNAL', message: 'Internal server error.' });
  });
});
