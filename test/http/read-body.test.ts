import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyAllowance, DRAIN_FACTOR, readBody } from '../../src/http/index.ts';

/** A request body stream without a content-length (chunked), written piece by piece. */
function chunked(pieces: string[]): IncomingMessage & PassThrough {
  const stream = Object.assign(new PassThrough(), { headers: {} }) as unknown as IncomingMessage & PassThrough;
  setImmediate(() => {
    for (const p of pieces) stream.write(p);
    stream.end();
  });
  return stream;
}

const ROUTE = 'POST /test';

describe('readBody', () => {
  it('joins the pieces of a body', async () => {
    expect((await readBody(chunked(['{"a":', '1}']), { route: ROUTE, limitBytes: 100 })).toString()).toBe('{"a":1}');
    expect((await readBody(chunked([]), { route: ROUTE, limitBytes: 100 })).length).toBe(0);
  });

  it('refuses a body that grows past the limit, and cuts the stream off', async () => {
    const req = chunked(['x'.repeat(60), 'x'.repeat(60)]);
    await expect(readBody(req, { route: ROUTE, limitBytes: 100 })).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is over 100 bytes, the most this route accepts.' });
    expect(req.destroyed).toBe(true);
    expect(req.readableEnded).toBe(false);
  });

  it('with overflow "drain", refuses the same body but reads the rest to its end', async () => {
    const req = chunked(['x'.repeat(60), 'x'.repeat(60), 'x'.repeat(60)]);
    await expect(readBody(req, { route: ROUTE, limitBytes: 100, overflow: 'drain' })).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is over 100 bytes, the most this route accepts.' });
    // Read to its end (a destroyed stream never ends: see the test above).
    if (!req.readableEnded) await new Promise<void>((resolve) => req.once('end', resolve));
    expect(req.readableEnded).toBe(true);
  });

  it('with overflow "drain", answers a refusal only once the body has ended (the client is done writing and reads it)', async () => {
    const req = chunked(['x'.repeat(60), 'x'.repeat(60), 'x'.repeat(60)]);
    const refused = readBody(req, { route: ROUTE, limitBytes: 100, overflow: 'drain' }).catch((error: unknown) => ({ error, endedFirst: req.readableEnded }));
    expect(await refused).toMatchObject({ error: { code: 'TG_PAYLOAD_TOO_LARGE' }, endedFirst: true });
  });

  it('with overflow "drain", reads a declared length past the limit to its end before refusing it, keeping none of it', async () => {
    const req = Object.assign(new PassThrough(), { headers: { 'content-length': '150' } }) as unknown as IncomingMessage & PassThrough;
    setImmediate(() => req.end('y'.repeat(150)));
    const refused = readBody(req, { route: ROUTE, limitBytes: 100, overflow: 'drain' }).catch((error: unknown) => ({ error, endedFirst: req.readableEnded }));
    expect(await refused).toMatchObject({ error: { code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is 150 bytes; this route accepts at most 100.' }, endedFirst: true });
  });

  it(`with overflow "drain", drains at most ${DRAIN_FACTOR} times the limit: past that the stream is cut off`, async () => {
    const grown = chunked(Array.from({ length: 2 * DRAIN_FACTOR }, () => 'z'.repeat(60)));
    await expect(readBody(grown, { route: ROUTE, limitBytes: 100, overflow: 'drain' })).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE' });
    expect(grown.destroyed).toBe(true);
    expect(grown.readableEnded).toBe(false);
    // A declared length past it is refused before anything is read.
    const declared = Object.assign(new PassThrough(), { headers: { 'content-length': String(100 * DRAIN_FACTOR + 1) } }) as unknown as IncomingMessage & PassThrough;
    await expect(readBody(declared, { route: ROUTE, limitBytes: 100, overflow: 'drain' })).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: `Request body is ${100 * DRAIN_FACTOR + 1} bytes; this route accepts at most 100.` });
    expect(declared.readableEnded).toBe(false);
  });

  it('refuses a declared length past the limit before reading', async () => {
    const req = Object.assign(new PassThrough(), { headers: { 'content-length': '101' } }) as unknown as IncomingMessage;
    await expect(readBody(req, { route: ROUTE, limitBytes: 100 })).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE', message: 'Request body is 101 bytes; this route accepts at most 100.' });
  });
});

/** A request stream with a declared length, written by the test. */
function declaredStream(length: number): IncomingMessage & PassThrough {
  return Object.assign(new PassThrough(), { headers: { 'content-length': String(length) } }) as unknown as IncomingMessage & PassThrough;
}

/** A stream that stays open until the test ends it: what a client that stops sending looks like. */
function openStream(): IncomingMessage & PassThrough {
  return Object.assign(new PassThrough(), { headers: {} }) as unknown as IncomingMessage & PassThrough;
}

const MIB = 1024 * 1024;

describe('readBody, bounded in memory', () => {
  it('keeps a body of one chunk as it came, and copies many chunks into one buffer sized to the declared length', async () => {
    const allowance = new BodyAllowance({ memoryBytes: MIB, timeoutMs: 60_000 });
    const one = Buffer.from('{"a":1}');
    const single = declaredStream(one.length);
    setImmediate(() => single.end(one));
    expect(await readBody(single, { route: ROUTE, limitBytes: 100, allowance })).toBe(one);

    // 10,000 one-byte chunks: one buffer of the declared size is held, not 10,000 objects.
    const body = 'x'.repeat(10_000);
    const req = declaredStream(body.length);
    const held: number[] = [];
    const read = readBody(req, { route: ROUTE, limitBytes: 20_000, allowance });
    for (const byte of body) {
      req.write(byte);
      await new Promise<void>((resolve) => setImmediate(resolve));
      held.push(allowance.held);
    }
    req.end();
    expect((await read).toString()).toBe(body);
    expect(Math.max(...held)).toBe(body.length);
    expect(allowance.held).toBe(0);
  });

  it('without a declared length, doubles its buffer up to the limit, never past it', async () => {
    const allowance = new BodyAllowance({ memoryBytes: MIB, timeoutMs: 60_000 });
    const pieces = Array.from({ length: 100 }, () => 'y'.repeat(1000));
    const req = chunked(pieces);
    const seen: number[] = [];
    req.on('data', () => seen.push(allowance.held));
    expect((await readBody(req, { route: ROUTE, limitBytes: 150_000, allowance })).toString()).toBe(pieces.join(''));
    // 16 KiB, then doubling: 32, 64, 128 KiB, then capped at the limit (150,000 bytes).
    expect(Math.max(...seen)).toBeLessThanOrEqual(150_000);
    expect(new Set(seen).size).toBeLessThan(10);
    expect(allowance.held).toBe(0);
  });

  it('refuses a body with 503 TG_BODY_MEMORY_FULL once the bodies being received hold the allowance, and a new one before reading it', async () => {
    const allowance = new BodyAllowance({ memoryBytes: 4096, timeoutMs: 60_000 });
    const holding = openStream();
    const held = readBody(holding, { route: ROUTE, limitBytes: 1_000_000, allowance });
    holding.write('a'.repeat(3000));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(allowance.held).toBe(3000);
    // A second body that would take the allowance past its 4096 bytes is refused as its bytes come.
    const second = openStream();
    const refused = readBody(second, { route: 'POST /mcp', limitBytes: 1_000_000, allowance });
    second.write('b'.repeat(2000));
    await expect(refused).rejects.toMatchObject({
      code: 'TG_BODY_MEMORY_FULL', status: 503,
      message: 'The request bodies being received hold 4096 bytes, the most this process keeps at once (TOOLGRAPH_BODY_MEMORY_BYTES); POST /mcp cannot take another body now: retry in 1 s.',
      details: { limit: 'bodyMemoryBytes', max: 4096, setting: 'TOOLGRAPH_BODY_MEMORY_BYTES', retryAfterSecs: 1 },
    });
    expect(allowance.held).toBe(3000);
    // The first grows to its buffer's next size past the allowance: refused too, and everything is released.
    holding.write('a'.repeat(200));
    await expect(held).rejects.toMatchObject({ code: 'TG_BODY_MEMORY_FULL' });
    expect(allowance.held).toBe(0);

    // Full: a new body is refused before any of it is read.
    const filler = openStream();
    const filling = readBody(filler, { route: ROUTE, limitBytes: 1_000_000, allowance });
    filler.write('c'.repeat(4096));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(allowance.full).toBe(true);
    await expect(readBody(openStream(), { route: ROUTE, limitBytes: 100, allowance })).rejects.toMatchObject({ code: 'TG_BODY_MEMORY_FULL' });
    filler.end();
    expect((await filling).length).toBe(4096);
    expect(allowance.held).toBe(0);
  });

  it('cuts a body that has not arrived by the deadline with 408 TG_BODY_TIMEOUT, and releases what it held', async () => {
    const allowance = new BodyAllowance({ memoryBytes: MIB, timeoutMs: 100 });
    const req = declaredStream(4000);
    const started = performance.now();
    const read = readBody(req, { route: 'POST /dispatch', limitBytes: 100_000, allowance });
    req.write('d'.repeat(3999));
    await expect(read).rejects.toMatchObject({
      code: 'TG_BODY_TIMEOUT', status: 408,
      message: 'The request body of POST /dispatch did not arrive within 100 ms (TOOLGRAPH_BODY_TIMEOUT_MS): 3999 of 4000 bytes came. Send the body at once, or raise the setting for slow links.',
      details: { limit: 'bodyTimeoutMs', max: 100, setting: 'TOOLGRAPH_BODY_TIMEOUT_MS', received: 3999, declared: 4000 },
    });
    // Cut at the deadline, the sweep (a quarter of it) at most one period late.
    expect(performance.now() - started).toBeGreaterThanOrEqual(99);
    expect(performance.now() - started).toBeLessThan(500);
    expect(allowance.held).toBe(0);
    // A body that arrives in time is not cut.
    const quick = declaredStream(2);
    const ok = readBody(quick, { route: ROUTE, limitBytes: 100, allowance });
    quick.write('o');
    setTimeout(() => quick.end('k'), 30);
    expect((await ok).toString()).toBe('ok');
  });

  it('releases what a body held when the client goes away, or the body grows past the limit', async () => {
    const allowance = new BodyAllowance({ memoryBytes: MIB, timeoutMs: 60_000 });
    const aborted = openStream();
    const read = readBody(aborted, { route: ROUTE, limitBytes: 100_000, allowance });
    aborted.write('e'.repeat(500));
    aborted.write('e'.repeat(500));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(allowance.held).toBeGreaterThan(0);
    aborted.destroy(new Error('aborted'));
    await expect(read).rejects.toThrow('aborted');
    expect(allowance.held).toBe(0);

    const grown = chunked(['f'.repeat(60), 'f'.repeat(60)]);
    await expect(readBody(grown, { route: ROUTE, limitBytes: 100, allowance })).rejects.toMatchObject({ code: 'TG_PAYLOAD_TOO_LARGE' });
    expect(allowance.held).toBe(0);
  });
});
