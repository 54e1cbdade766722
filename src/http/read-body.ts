import type { IncomingMessage } from 'node:http';
import { ToolgraphError } from '../errors/index.ts';
import { processBodies, type BodyAllowance, type ReceivingBody } from './body-allowance.ts';

/** What happens to the rest of a body that grows past the limit. */
type BodyOverflow =
  /** The request stream is destroyed (the default). */
  | 'destroy'
  /**
   * The rest is read and dropped, up to DRAIN_FACTOR times the limit, before the refusal is
   * answered: the client has sent its whole body by then, so it reads the refusal, even on a
   * connection it asked to close (a server that answers and closes while the client still writes
   * makes the client's write fail with EPIPE or a reset, and the answer is lost). Past that much,
   * the stream is destroyed as with `destroy`.
   */
  | 'drain';

/** How a route reads its body. */
export interface BodyReadOptions {
  /** The route as messages name it, e.g. `POST /dispatch`. */
  readonly route: string;
  /** Largest accepted body in bytes (TG_PAYLOAD_TOO_LARGE past it, before more is buffered). */
  readonly limitBytes: number;
  /** What happens to the rest of a body past the limit; `destroy` by default. */
  readonly overflow?: BodyOverflow;
  /** Where the bytes held and the deadline are counted; the process's own by default. */
  readonly allowance?: BodyAllowance;
}

/** How much of a refused body `drain` reads and drops, as a multiple of the route's limit. */
export const DRAIN_FACTOR = 8;

/**
 * The first size a body's buffer takes once a second chunk comes (unless the declared length is
 * smaller); it doubles from there. Small enough that a two-chunk body of a few bytes costs little,
 * large enough that a body of many small chunks is copied a handful of times.
 */
const FIRST_BUFFER_BYTES = 16 * 1024;

const EMPTY = Buffer.alloc(0);

function tooLarge(message: string): ToolgraphError {
  return new ToolgraphError('TG_PAYLOAD_TOO_LARGE', message);
}

/**
 * Reads and drops the rest of a refused body, then rejects with `refusal`; `read` bytes of it are
 * already in. Past `drainTo` bytes in all, the stream is destroyed and the refusal given at once.
 * Nothing is kept, so nothing is charged; a sender too slow to finish is cut by node:http's
 * whole-request deadline (the host sets it to the head deadline plus TOOLGRAPH_BODY_TIMEOUT_MS).
 */
function drainThenRefuse(req: IncomingMessage, refusal: ToolgraphError, read: number, drainTo: number): Promise<never> {
  return new Promise((_resolve, reject) => {
    let total = read;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > drainTo) {
        finish();
        req.destroy();
      }
    };
    const finish = (): void => {
      req.off('data', onData);
      req.off('end', finish);
      req.off('error', finish);
      req.off('close', finish);
      reject(refusal);
    };
    req.on('data', onData);
    req.once('end', finish);
    req.once('error', finish);
    req.once('close', finish);
    req.resume();
  });
}

/** The read in progress on a request: its listeners are shared by every request and find it here. */
const READ = Symbol('toolgraph.bodyRead');
type Reading = IncomingMessage & { [READ]?: BodyRead };

/**
 * One body being read: what has come (the first chunk as it came; `buffer` once a second one comes,
 * `total` bytes of it filled), what it counts against the allowance, and its place in the
 * allowance's deadline list. One object per request, and no closure: the request's listeners are
 * module functions (node:http calls them with the request as `this`).
 */
class BodyRead implements ReceivingBody {
  startTick = 0;
  prev: ReceivingBody | undefined = undefined;
  next: ReceivingBody | undefined = undefined;
  first: Buffer | undefined = undefined;
  buffer: Buffer | undefined = undefined;
  total = 0;
  /** Bytes counted against the allowance: the first chunk's length, then the buffer's. */
  charged = 0;

  readonly req: Reading;
  readonly options: BodyReadOptions;
  readonly allowance: BodyAllowance;
  /** What the buffer may grow to: the declared length (node:http holds the body to it), else the limit. */
  readonly bound: number;
  readonly declared: number | undefined;
  readonly resolve: (body: Buffer) => void;
  readonly reject: (error: unknown) => void;

  constructor(req: Reading, options: BodyReadOptions, allowance: BodyAllowance, bound: number, declared: number | undefined, resolve: (body: Buffer) => void, reject: (error: unknown) => void) {
    this.req = req;
    this.options = options;
    this.allowance = allowance;
    this.bound = bound;
    this.declared = declared;
    this.resolve = resolve;
    this.reject = reject;
  }

  data(chunk: Buffer): void {
    const { limitBytes } = this.options;
    const size = this.total + chunk.length;
    if (size > limitBytes) {
      this.done();
      const refusal = tooLarge(`Request body is over ${limitBytes} bytes, the most this route accepts.`);
      if (this.options.overflow === 'drain') {
        drainThenRefuse(this.req, refusal, size, limitBytes * DRAIN_FACTOR).catch(this.reject);
        return;
      }
      this.req.destroy();
      this.reject(refusal);
      return;
    }
    if (this.total === 0) {
      if (!this.allowance.charge(chunk.length)) {
        this.refuse(this.allowance.fullRefusal(this.options.route));
        return;
      }
      this.charged = chunk.length;
      this.first = chunk;
    } else {
      if ((this.buffer === undefined || size > this.buffer.length) && !this.grow(size)) {
        this.refuse(this.allowance.fullRefusal(this.options.route));
        return;
      }
      chunk.copy(this.buffer!, this.total);
    }
    this.total = size;
  }

  /** A buffer for `size` bytes and more: doubling, at least FIRST_BUFFER_BYTES, at most `bound`; false past the allowance. */
  grow(size: number): boolean {
    const current = this.buffer?.length ?? 0;
    const capacity = Math.min(this.bound, Math.max(size, FIRST_BUFFER_BYTES, 2 * current));
    // The body counts at its new buffer's size; the old one is garbage once copied.
    if (!this.allowance.charge(capacity - this.charged)) return false;
    const grown = Buffer.allocUnsafe(capacity);
    if (this.buffer !== undefined) this.buffer.copy(grown, 0, 0, this.total);
    else this.first!.copy(grown);
    this.charged = capacity;
    this.buffer = grown;
    this.first = undefined;
    return true;
  }

  end(): void {
    const body = this.buffer === undefined ? (this.first ?? EMPTY) : this.buffer.subarray(0, this.total);
    this.done();
    this.resolve(body);
  }

  /** The sweep's call at the deadline. */
  expire(): void {
    this.refuse(this.allowance.timeoutRefusal(this.options.route, this.total, this.declared));
  }

  refuse(error: unknown): void {
    this.done();
    this.reject(error);
  }

  done(): void {
    const req = this.req;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req[READ] = undefined;
    this.allowance.unwatch(this);
    this.allowance.release(this.charged);
    this.charged = 0;
    this.first = undefined;
    this.buffer = undefined;
  }
}

function onData(this: Reading, chunk: Buffer): void {
  this[READ]?.data(chunk);
}

function onEnd(this: Reading): void {
  this[READ]?.end();
}

function onError(this: Reading, error: Error): void {
  this[READ]?.refuse(error);
}

/**
 * Reads a request body up to `limitBytes`, failing with TG_PAYLOAD_TOO_LARGE past it (a declared
 * length past it is refused before anything is kept; a body that grows past it is cut off as
 * `overflow` says). Bounded in memory, not only in length:
 * - chunks are copied into one buffer as they come (sized to the declared length when there is one,
 *   else doubling up to the limit), so a body of a million one-byte chunks holds one buffer, not a
 *   million objects each costing hundreds of bytes; a body of one chunk keeps that chunk as it is;
 * - the buffer counts against the process-wide allowance of bytes held by bodies being received
 *   (TOOLGRAPH_BODY_MEMORY_BYTES): past it the body is refused with 503 TG_BODY_MEMORY_FULL;
 * - the body must arrive within TOOLGRAPH_BODY_TIMEOUT_MS of the route starting to read it, else
 *   408 TG_BODY_TIMEOUT.
 * After either refusal the rest of the body is left to node:http, which drops it once the answer is
 * sent (the 408 closes the connection). Event-driven rather than an async iterator, which costs a
 * promise per chunk, with one state object and shared listeners: this runs on every request of the
 * dispatch and GraphQL hot paths.
 */
export function readBody(req: IncomingMessage, options: BodyReadOptions): Promise<Buffer> {
  const { limitBytes } = options;
  const allowance = options.allowance ?? processBodies;
  const contentLength = req.headers['content-length'];
  const declared = contentLength === undefined ? undefined : Number(contentLength);
  if (declared !== undefined && declared > limitBytes) {
    const refusal = tooLarge(`Request body is ${declared} bytes; this route accepts at most ${limitBytes}.`);
    const drainTo = options.overflow === 'drain' ? limitBytes * DRAIN_FACTOR : 0;
    return declared <= drainTo ? drainThenRefuse(req, refusal, 0, drainTo) : Promise.reject(refusal);
  }
  if (allowance.full) return Promise.reject(allowance.fullRefusal(options.route));
  const bound = declared !== undefined && Number.isFinite(declared) ? declared : limitBytes;
  return new Promise((resolve, reject) => {
    const read = new BodyRead(req, options, allowance, bound, declared, resolve, reject);
    (req as Reading)[READ] = read;
    allowance.watch(read);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
