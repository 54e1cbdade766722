import type { Server, Socket } from 'node:net';

/**
 * Over-cap connections that may wait for their request head at once. Enough for a burst of honest
 * clients to get their 503 (or a probe its answer); past it, the one that waited longest is closed.
 */
const OVERFLOW_CONNECTIONS = 1024;

/**
 * Counts a listener's open connections from the moment they are accepted, idle ones included, against
 * a cap. A connection past the cap goes to a small overflow lane instead: the listener answers its
 * request at once and closes it (503 TG_TOO_MANY_CONNECTIONS, or a probe). When the lane is full, a
 * new connection closes the lane's connection that has waited longest without sending a request, so
 * a flood of idle sockets can never lock a probe out, and the listener never holds more than
 * `max + overflowMax` sockets.
 */
export class ConnectionCap {
  readonly max: number;
  readonly overflowMax: number;
  /** Connections within the cap, until they close or are released. */
  readonly #admitted = new Set<Socket>();
  /** Over-cap connections still open. */
  readonly #overflow = new Set<Socket>();
  /** Over-cap connections that have not sent a request yet, oldest first. */
  readonly #waiting = new Set<Socket>();
  readonly #admit = (socket: Socket): void => this.admit(socket);
  readonly #admittedClosed: (this: Socket) => void;
  readonly #overflowClosed: (this: Socket) => void;

  constructor(max: number, overflowMax = OVERFLOW_CONNECTIONS) {
    this.max = max;
    this.overflowMax = overflowMax;
    const admitted = this.#admitted;
    const overflow = this.#overflow;
    const waiting = this.#waiting;
    // Shared close handlers (no closure per connection).
    this.#admittedClosed = function admittedClosed(this: Socket): void {
      admitted.delete(this);
    };
    this.#overflowClosed = function overflowClosed(this: Socket): void {
      overflow.delete(this);
      waiting.delete(this);
    };
  }

  /** Connections within the cap, idle ones included. */
  get active(): number {
    return this.#admitted.size;
  }

  /** Over-cap connections still open. */
  get overflowing(): number {
    return this.#overflow.size;
  }

  /** Counts every connection `server` accepts from now on (its 'connection' event). */
  watch(server: Server): void {
    server.on('connection', this.#admit);
  }

  /** Admits a socket within the cap, else into the overflow lane (making room in it), else closes it. */
  admit(socket: Socket): void {
    if (this.#admitted.size < this.max) {
      this.#admitted.add(socket);
      socket.once('close', this.#admittedClosed);
      return;
    }
    if (this.#overflow.size >= this.overflowMax) {
      const oldest = this.#waiting.values().next();
      if (oldest.done === true) {
        socket.destroy();
        return;
      }
      this.#waiting.delete(oldest.value);
      this.#overflow.delete(oldest.value);
      oldest.value.destroy();
    }
    this.#overflow.add(socket);
    this.#waiting.add(socket);
    socket.once('close', this.#overflowClosed);
  }

  /** Every connection still counted, within the cap or over it. */
  *sockets(): IterableIterator<Socket> {
    yield* this.#admitted;
    yield* this.#overflow;
  }

  /**
   * Frees a connection's slot before its socket has closed: for a listener whose every response
   * closes its connection, the slot is free once the response has ended.
   */
  release(socket: Socket): void {
    this.#admitted.delete(socket);
  }

  /**
   * Whether a request came on an over-cap connection (which then leaves the waiting line): the
   * listener answers it and closes the connection. One size check when nothing is over the cap.
   */
  isOverflow(socket: Socket): boolean {
    if (this.#overflow.size === 0 || !this.#overflow.has(socket)) return false;
    this.#waiting.delete(socket);
    return true;
  }
}
