import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../src/http/index.ts';

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

  it('refuses a declared length past the limit before reading', async () => {
    const req = Object.assign(new PassThrough(), { headers: { 'content-length': '101' } }) as unknown as IncomingMessage;
    await expect(readBody(req, 100)).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is 101 bytes; this route accepts at most 100.' });
  });
});
