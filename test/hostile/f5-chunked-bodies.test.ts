/**
 * Issue 28, F5: a body sent in one-byte chunks cost about 350 times its size, since the body reader
 * kept every chunk node:http handed it (a Buffer object and its own backing store each) until the
 * body ended: one 4 MB body on /mcp took the server's resident set to 1.4–1.7 GB, six 1 MB bodies
 * on /dispatch to 2.5 GB, and /graphql with a query:graphql token to 1.8 GB. Now the reader copies
 * chunks into one buffer as they come (sized to the declared length, or doubling up to the limit),
 * so such a body holds about its own size. Each surface is driven through the real HTTP port, the
 * server in a child process whose resident set the test reads, the body held open before its last
 * byte so that what it holds is measured, then finished to show it is still read and answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LAST_CHUNK, oneByteChunks, postHead, RawRequest, startBodyTarget, watchPeakRss, type BodyTarget, type RawAnswer } from './bodies/body-target.ts';

const MIB = 1024 * 1024;
/** Bytes of each body: within every route's limit (1 MiB on /dispatch and /graphql, 4 MiB on /mcp). */
const BODY_BYTES = 1_000_000;
/** Growth of the server's resident set one such body may cause: a few buffers of its size, and garbage not yet collected. The old reader took about 350 MB. */
const MAX_GROWTH_BYTES = 48 * MIB;

/** `prefix` + a padding string + `suffix`, `BODY_BYTES` long. */
function padded(prefix: string, suffix: string): string {
  return `${prefix}${'p'.repeat(BODY_BYTES - prefix.length - suffix.length)}${suffix}`;
}

const CYPHER_PREFIX = '{"id":5,"graph":"demo","method":{"Cypher":{"query":"RETURN size($pad) AS n","params":{"pad":"';
const CYPHER_SUFFIX = '"}}}}';

const SURFACES: readonly { name: string; path: string; body: string; answered: (status: number, body: string) => void }[] = [
  {
    name: 'POST /dispatch',
    path: '/dispatch',
    body: padded(CYPHER_PREFIX, CYPHER_SUFFIX),
    answered: (status, body) => {
      expect(status).toBe(200);
      // The whole padding came through.
      expect((JSON.parse(body) as { result: { rows: number[][] } }).result.rows).toEqual([[BODY_BYTES - CYPHER_PREFIX.length - CYPHER_SUFFIX.length]]);
    },
  },
  {
    name: 'POST /graphql/demo',
    path: '/graphql/demo',
    body: padded('{"query":"{ __typename }","variables":{"pad":"', '"}}'),
    answered: (status, body) => {
      expect(status).toBe(200);
      expect(body).toContain('"__typename"');
    },
  },
  {
    name: 'POST /mcp (initialize)',
    path: '/mcp',
    body: padded('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f5","version":"1"},"pad":"', '"}}'),
    answered: (status, body) => {
      expect(status).toBe(200);
      expect(body).toContain('"protocolVersion"');
    },
  },
];

// A server of its own for each surface: memory the allocator keeps after one body would hide what the next one takes.
let target: BodyTarget;
afterEach(() => target.close());

/** Waits until the server's resident set has not grown for `quietMs` (it has read what was sent), at most `timeoutMs`. */
async function settled(quietMs: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = target.rss();
  let since = performance.now();
  while (performance.now() < deadline && performance.now() - since < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = target.rss();
    if (now > last + MIB) since = performance.now();
    last = Math.max(last, now);
  }
}

/**
 * What the server's resident set grows by while `body` arrives in one-byte chunks on `path`, all
 * but its last byte (a pause: what the server holds while the body is still open); then the answer
 * once it ends.
 */
async function measure(path: string, body: string): Promise<{ growth: number; answer: RawAnswer | undefined }> {
  const before = target.rss();
  const peak = watchPeakRss(target);
  const request = new RawRequest(target.origin, postHead(target.origin, path, {}, undefined));
  const wire = oneByteChunks(body);
  request.write(wire.subarray(0, wire.length - 6));
  await settled(400, 10_000);
  const growth = peak.stop() - before;
  request.write(wire.subarray(wire.length - 6));
  request.write(LAST_CHUNK);
  const answer = await request.answer(10_000);
  request.destroy();
  return { growth, answer };
}

describe('F5: request bodies in one-byte chunks', () => {
  it.each(SURFACES)('$name holds about its body\'s size, not hundreds of bytes per chunk, and still answers it', async ({ path, body, answered }) => {
    target = await startBodyTarget({});
    const { growth, answer } = await measure(path, body);
    console.log(`F5 ${path}: ${BODY_BYTES} bytes in one-byte chunks, resident set +${(growth / MIB).toFixed(1)} MiB; answered ${answer?.status}`);
    expect(target.alive()).toBe(true);
    expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
    expect(answer).toBeDefined();
    answered(answer!.status, answer!.body);
  }, 30_000);

});
