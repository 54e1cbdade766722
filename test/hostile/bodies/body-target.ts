import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { forkServerProcess } from '../../support/server-process.ts';
import type { BodyParentMessage, BodyReadyMessage, BodyServerMessage } from './body-server.ts';

export interface BodyTarget {
  readonly origin: string;
  /** The server's resident set size now, in bytes. */
  rss(): number;
  /** Bytes of the server's live ArrayBuffers (Buffers among them) after a full GC: what its request bodies hold, outside the heap. */
  heldBuffers(): Promise<number>;
  /** Whether the server process still runs (one that ran out of memory does not). */
  alive(): boolean;
  close(): Promise<void>;
}

const SERVER_ENTRY = fileURLToPath(new URL('./body-server.ts', import.meta.url));

/**
 * The whole product in a child process (body-server.ts) with these settings. Its heap is capped
 * (`--max-old-space-size`) so that a server whose bodies eat memory dies early rather than eat the
 * machine: the test then fails on the process being gone.
 */
export async function startBodyTarget(env: Record<string, string>, heapMiB = 1024): Promise<BodyTarget> {
  const server = await forkServerProcess<BodyReadyMessage, BodyServerMessage>(SERVER_ENTRY, {
    name: 'the body server', execArgv: [`--max-old-space-size=${heapMiB}`], env: { BODY_SERVER_ENV: JSON.stringify(env) }, startTimeoutMs: 60_000,
  });
  return {
    origin: server.ready.origin,
    rss: () => server.rss(),
    heldBuffers: () => server.ask((id): BodyParentMessage => ({ buffers: id }), (m, id) => (m.buffers === id ? m.bytes : undefined)),
    alive: () => server.alive(),
    close: () => server.close(5_000),
  };
}

/** The highest of the server's resident set readings, every 25 ms, until stopped. */
export function watchPeakRss(target: BodyTarget): { stop(): number } {
  let peak = target.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, target.rss());
  }, 25);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, target.rss());
    },
  };
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Parses what a raw socket received: the status line, headers and (unchunked) body of one response; undefined when none came. */
function answerOf(received: string): RawAnswer | undefined {
  const end = received.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = received.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: received.slice(end + 4) };
}

function complete(answer: RawAnswer): boolean {
  const length = answer.headers['content-length'];
  if (length !== undefined) return Buffer.byteLength(answer.body) >= Number(length);
  if (answer.headers['content-type']?.startsWith('text/event-stream') === true) return answer.body.includes('\n\n');
  return answer.body.endsWith('0\r\n\r\n');
}

/**
 * A request written by hand on a socket of its own: the head, then whatever the test writes
 * (`write`), as slowly as it likes. `answer()` is what came back by the time the server answered
 * and ended its response, or closed the connection (undefined when nothing came).
 */
export class RawRequest {
  readonly socket: Socket;
  #received = '';
  readonly #closed: Promise<void>;

  constructor(origin: string, head: string) {
    const url = new URL(origin);
    this.socket = connect(Number(url.port), url.hostname);
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.#received += chunk;
    });
    // The server may reset a connection it refused while the test still writes.
    this.socket.on('error', () => undefined);
    this.#closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.write(head);
  }

  write(data: Buffer | string): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /** The response so far (undefined before its head has come). */
  get received(): RawAnswer | undefined {
    return answerOf(this.#received);
  }

  /**
   * Waits for a whole response (by its Content-Length, its last chunk, or the first event of a
   * stream) or the close of the connection.
   */
  async answer(timeoutMs: number): Promise<RawAnswer | undefined> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const answer = this.received;
      if (answer !== undefined && complete(answer)) return answer;
      const closed = await Promise.race([this.#closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))]);
      if (closed) return this.received;
    }
    return this.received;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The head of a POST to `origin` (its Host): `length` as Content-Length, or chunked when undefined; JSON unless `headers` names another Content-Type. */
export function postHead(origin: string, path: string, headers: Record<string, string>, length: number | undefined): string {
  const { 'Content-Type': type = 'application/json', ...others } = headers;
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${new URL(origin).host}`, `Content-Type: ${type}`, 'Accept: application/json, text/event-stream',
    length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`, ...Object.entries(others).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** `text` in HTTP/1.1 chunked framing, one byte per chunk (6 bytes on the wire per byte of body), without the final chunk. */
export function oneByteChunks(text: string): Buffer {
  const bytes = Buffer.from(text);
  const out = Buffer.allocUnsafe(bytes.length * 6);
  for (let i = 0; i < bytes.length; i++) {
    out.write('1\r\n', i * 6, 'latin1');
    out[i * 6 + 3] = bytes[i]!;
    out.write('\r\n', i * 6 + 4, 'latin1');
  }
  return out;
}

/** The chunked body's end. */
export const LAST_CHUNK = '0\r\n\r\n';
