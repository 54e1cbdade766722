import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DRAIN_FACTOR, readBody } from '../../src/http/index.ts';

/** A request body stream without a content-length (chunked), written piece by piece. */
function chunked(pieces: string[]): IncomingMessage & PassThrough {
  const stream = Object.assign(new PassThrough(), { headers: {} }) as unknown as IncomingMessage & PassThrough;
  setImmediate(() => {
    for (const p of pieces) stream.write(p);
    stream.end();
  });
  return stream;
}

describe('readBody', () => {
  it('joins the pieces of a body', async () => {
    expect((await readBody(chunked(['{"a":', '1}']), 100)).toString()).toBe('{"a":1}');
    expect((await readBody(chunked([]), 100)).length).toBe(0);
  });

  it('refuses a body that grows past the limit, and cuts the stream off', async () => {
    const req = chunked(['x'.repeat(60), 'x'.repeat(60)]);
    await expect(readBody(req, 100)).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is over 100 bytes, the most this route accepts.' });
    expect(req.destroyed).toBe(true);
    expect(req.readableEnded).toBe(false);
  });

  it('with overflow "drain", refuses the same body but reads the rest to its end', async () => {
    const req = chunked(['x'.repeat(60), 'x'.repeat(60), 'x'.repeat(60)]);
    await expect(readBody(req, 100, 'drain')).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is over 100 bytes, the most this route accepts.' });
    // Read to its end (a destroyed stream never ends: see the test above).
    if (!req.readableEnded) await new Promise<void>((resolve) => req.once('end', resolve));
    expect(req.readableEnded).toBe(true);
  });

  it('with overflow "drain", answers a refusal only once the body has ended (the client is done writing and reads it)', async () => {
    const req = chunked(['x'.repeat(60), 'x'.repeat(60), 'x'.repeat(60)]);
    const refused = readBody(req, 100, 'drain').catch((error: unknown) => ({ error, endedFirst: req.readableEnded }));
    expect(await refused).toMatchObject({ error: { code: 'TG_PAYLOAD_TOO_LARGE' }, endedFirst: true });
  });

  it('with overflow "drain", reads a declared length past the limit to its end before refusing it, keeping none of it', async () => {
    const req = Object.assign(new PassThrough(), { headers: { 'content-length': '150' } }) as unknown as IncomingMessage & PassThrough;
    setImmediate(() => req.end('y'.repeat(150)));
    const refused = readBody(req, 100, 'drain').catch((error: unknown) => ({ error, endedFirst: req.readableEnded }));
    expect(await refused).toMatchObject({ error: { code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is 150 bytes; this route accepts at most 100.' }, endedFirst: true });
  });

  it(`with overflow "drain", drains at most ${DRAIN_FACTOR} times the limit: past that the stream is cut off`, async () => {
    const grown = chunked(Array.from({ length: 2 * DRAIN_FACTOR }, () => 'z'.repeat(60)));
    await expect(readBody(grown, 100, 'drain')).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE' });
    expect(grown.destroyed).toBe(true);
    expect(grown.readableEnded).toBe(false);
    // A declared length past it is refused before anything is read.
    const declared = Object.assign(new PassThrough(), { headers: { 'content-length': String(100 * DRAIN_FACTOR + 1) } }) as unknown as IncomingMessage & PassThrough;
    await expect(readBody(declared, 100, 'drain')).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: `Request body is ${100 * DRAIN_FACTOR + 1} bytes; this route accepts at most 100.` });
    expect(declared.readableEnded).toBe(false);
  });

  it('refuses a declared length past the limit before reading', async () => {
    const req = Object.assign(new PassThrough(), { headers: { 'content-length': '101' } }) as unknown as IncomingMessage;
    await expect(readBody(req, 100)).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is 101 bytes; this route accepts at most 100.' });
  });
});
