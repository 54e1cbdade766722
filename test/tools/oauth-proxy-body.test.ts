import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readProxyBody } from '../../src/tools/oauth-proxy/proxy-body.ts';

/** A POST whose body is `body`, with these headers (a Content-Length from the body unless given). */
function post(body: string | Buffer, headers: Record<string, string>): IncomingMessage & PassThrough {
  const req = Object.assign(new PassThrough(), { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }) as unknown as IncomingMessage & PassThrough;
  setImmediate(() => req.end(body));
  return req;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('readProxyBody: the sign-in proxy\'s bodies, read as express\'s parsers on each route would', () => {
  it('reads a form on the form routes (a repeated name becomes a list, which the SDK\'s checks refuse)', async () => {
    expect({ ...(await readProxyBody(post('grant_type=authorization_code&code=a%20b+c', FORM), '/token') as object) }).toEqual({ grant_type: 'authorization_code', code: 'a b c' });
    expect({ ...(await readProxyBody(post('scope=a&scope=b', { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' }), '/authorize') as object) }).toEqual({ scope: ['a', 'b'] });
    expect({ ...(await readProxyBody(post('', FORM), '/oauth/consent') as object) }).toEqual({});
  });

  it('reads JSON on /register only, an empty body as {}', async () => {
    expect(await readProxyBody(post('{"redirect_uris":["http://127.0.0.1/cb"]}', { 'content-type': 'application/json' }), '/register')).toEqual({ redirect_uris: ['http://127.0.0.1/cb'] });
    expect(await readProxyBody(post('', { 'content-type': 'application/json' }), '/register')).toEqual({});
    await expect(readProxyBody(post('{"a":', { 'content-type': 'application/json' }), '/register')).rejects.toMatchObject({ code: 'TG_BAD_REQUEST' });
  });

  it('leaves a body of another media type unread, as the route\'s parser would', async () => {
    const json = post('{"a":1}', { 'content-type': 'application/json' });
    expect(await readProxyBody(json, '/token')).toBeUndefined();
    const form = post('a=1', FORM);
    expect(await readProxyBody(form, '/register')).toBeUndefined();
    expect(json.readableEnded || form.readableEnded).toBe(false);
    // No body, or one the host has dropped already.
    expect(await readProxyBody(Object.assign(new PassThrough(), { method: 'POST', headers: {} }) as unknown as IncomingMessage, '/token')).toBeUndefined();
    const dropped = post('a=1', FORM);
    dropped.resume();
    await new Promise((resolve) => dropped.once('end', resolve));
    expect(await readProxyBody(dropped, '/token')).toBeUndefined();
  });

  it('holds each route to its parser\'s limit (100 KiB, the consent form 16 KiB) and refuses what express would have inflated or decoded otherwise', async () => {
    await expect(readProxyBody(post(`code=${'c'.repeat(100 * 1024)}`, FORM), '/token')).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: `Request body is ${100 * 1024 + 5} bytes; this route accepts at most ${100 * 1024}.` });
    await expect(readProxyBody(post(`csrf=${'c'.repeat(16 * 1024)}`, FORM), '/oauth/consent')).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE' });
    await expect(readProxyBody(post('code=%E9', { 'content-type': 'application/x-www-form-urlencoded; charset=ISO-8859-1' }), '/token')).rejects.toMatchObject({
      code: 'TG_UNSUPPORTED_MEDIA_TYPE', message: 'POST /token reads forms in UTF-8 only; the Content-Type names charset "iso-8859-1".',
    });
    await expect(readProxyBody(post('x', { ...FORM, 'content-encoding': 'gzip' }), '/token')).rejects.toMatchObject({ code: 'TG_UNSUPPORTED_MEDIA_TYPE', message: 'POST /token reads bodies uncompressed; the request has Content-Encoding "gzip".' });
    await expect(readProxyBody(post(Buffer.from([0x63, 0x3d, 0xff]), FORM), '/token')).rejects.toMatchObject({ code: 'TG_BAD_REQUEST', message: 'The form is not valid UTF-8.' });
  });
});
