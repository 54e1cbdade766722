import { ToolgraphError } from '../errors/index.ts';

/** What request bodies being received may take (TOOLGRAPH_BODY_MEMORY_BYTES, TOOLGRAPH_BODY_TIMEOUT_MS). */
export interface BodyLimits {
  /** Bytes every body being received may hold at once, across all connections, routes and listeners. */
  readonly memoryBytes: number;
  /** Milliseconds a body has to arrive in full once its route starts reading it. */
  readonly timeoutMs: number;
}

/** The settings' defaults, for processes started without settings (tests, benchmarks). */
export const DEFAULT_BODY_LIMITS: BodyLimits = Object.freeze({ memoryBytes: 256 * 1024 * 1024, timeoutMs: 30_000 });

/** Seconds a body refused for want of memory is asked to wait (Retry-After): bodies in flight finish or time out meanwhile. */
const BODY_RETRY_AFTER_SECS = 1;

const BODY_SETTINGS = Object.freeze({
  memoryBytes: 'TOOLGRAPH_BODY_MEMORY_BYTES',
  timeoutMs: 'TOOLGRAPH_BODY_TIMEOUT_MS',
} satisfies Record<keyof BodyLimits, string>);

/**
 * A body being received, as the deadline sweep sees it: a node of the allowance's list of bodies in
 * the order they started (so the sweep looks only at the oldest), stamped with the sweep's tick.
 */
export interface ReceivingBody {
  /** The sweep's tick when the body started; set by `watch`. */
  startTick: number;
  prev: ReceivingBody | undefined;
  next: ReceivingBody | undefined;
  /** Called once, by the sweep, when the deadline has passed: the reader refuses the body. */
  expire(): void;
}

/**
 * What request bodies hold while they arrive, for the whole process: the bytes every body reader
 * (readBody) keeps, counted against one cap, and the deadline of each, cut by one sweep. A client
 * that opens many connections and sends all but the last byte of each body, or sends nothing more,
 * holds at most the cap, for at most the deadline: past the cap a body is refused (503
 * TG_BODY_MEMORY_FULL with Retry-After), past the deadline it is cut (408 TG_BODY_TIMEOUT).
 * Watching a body costs a few property writes: no clock is read and no timer is set per request
 * (on the hot paths a clock reading and a Set entry cost more than the rest of reading a small body).
 */
export class BodyAllowance {
  #limits: BodyLimits;
  /** Bytes held by bodies being received right now (the capacity of their buffers). */
  #held = 0;
  /** Bodies being received, oldest first. */
  #oldest: ReceivingBody | undefined;
  #newest: ReceivingBody | undefined;
  /** Sweeps so far: the clock bodies are stamped with. */
  #tick = 0;
  /** Ticks after which a body is cut: one more than the deadline spans, so none is cut early. */
  #ticksToExpire = 1;
  #sweeper: NodeJS.Timeout | undefined;
  /** Sweeps in a row that found nothing to watch: two, and the timer stops until the next body. */
  #idleSweeps = 0;

  constructor(limits: BodyLimits = DEFAULT_BODY_LIMITS) {
    this.#limits = limits;
  }

  get limits(): BodyLimits {
    return this.#limits;
  }

  /** Bytes held right now by bodies being received. */
  get held(): number {
    return this.#held;
  }

  /** Takes new limits (serve sets the settings once, at start-up). */
  configure(limits: BodyLimits): void {
    this.#limits = limits;
    this.#stopSweeper();
    if (this.#oldest !== undefined) this.#startSweeper();
  }

  /** Whether the cap is reached: a new body is refused before any of it is read. */
  get full(): boolean {
    return this.#held >= this.#limits.memoryBytes;
  }

  /** Counts `bytes` more as held; false, counting nothing, when that would pass the cap. */
  charge(bytes: number): boolean {
    if (this.#held + bytes > this.#limits.memoryBytes) return false;
    this.#held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#held -= bytes;
  }

  /** Cuts `body` at its deadline unless `unwatch` comes first. */
  watch(body: ReceivingBody): void {
    body.startTick = this.#tick;
    body.prev = this.#newest;
    body.next = undefined;
    if (this.#newest === undefined) this.#oldest = body;
    else this.#newest.next = body;
    this.#newest = body;
    if (this.#sweeper === undefined) this.#startSweeper();
  }

  /** Stops watching `body` (a body not watched is left as it is). */
  unwatch(body: ReceivingBody): void {
    const { prev, next } = body;
    if (prev === undefined && next === undefined && this.#oldest !== body) return;
    if (prev === undefined) this.#oldest = next;
    else prev.next = next;
    if (next === undefined) this.#newest = prev;
    else next.prev = prev;
    body.prev = undefined;
    body.next = undefined;
  }

  /** The 503 a body gets when the bodies being received already hold the cap. */
  fullRefusal(route: string): ToolgraphError {
    const max = this.#limits.memoryBytes;
    return new ToolgraphError('TG_BODY_MEMORY_FULL',
      `The request bodies being received hold ${max} bytes, the most this process keeps at once (${BODY_SETTINGS.memoryBytes}); ${route} cannot take another body now: retry in ${BODY_RETRY_AFTER_SECS} s.`,
      { details: { limit: 'bodyMemoryBytes', max, setting: BODY_SETTINGS.memoryBytes, retryAfterSecs: BODY_RETRY_AFTER_SECS } });
  }

  /** The 408 a body gets when it has not arrived by its deadline. */
  timeoutRefusal(route: string, received: number, declared: number | undefined): ToolgraphError {
    const max = this.#limits.timeoutMs;
    const of = declared === undefined ? '' : ` of ${declared}`;
    return new ToolgraphError('TG_BODY_TIMEOUT',
      `The request body of ${route} did not arrive within ${max} ms (${BODY_SETTINGS.timeoutMs}): ${received}${of} bytes came. Send the body at once, or raise the setting for slow links.`,
      { details: { limit: 'bodyTimeoutMs', max, setting: BODY_SETTINGS.timeoutMs, received, ...(declared === undefined ? {} : { declared }) } });
  }

  #startSweeper(): void {
    // A quarter of the deadline, at most a second (as node:http checks its own deadlines): a body is
    // cut between its deadline and one period past it.
    const period = Math.max(5, Math.min(1000, Math.floor(this.#limits.timeoutMs / 4)));
    this.#ticksToExpire = Math.ceil(this.#limits.timeoutMs / period) + 1;
    this.#idleSweeps = 0;
    this.#sweeper = setInterval(() => this.#sweep(), period);
    this.#sweeper.unref();
  }

  #stopSweeper(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #sweep(): void {
    const tick = ++this.#tick;
    if (this.#oldest === undefined) {
      if (++this.#idleSweeps >= 2) this.#stopSweeper();
      return;
    }
    this.#idleSweeps = 0;
    // Oldest first: the first body within its deadline ends the sweep.
    for (let body = this.#oldest; body !== undefined && tick - body.startTick >= this.#ticksToExpire; body = this.#oldest) {
      this.unwatch(body);
      body.expire();
    }
  }
}

/**
 * The process's own allowance: memory is the process's, so one cap serves every listener and route
 * (readBody counts against it unless given another). serve configures it from the settings.
 */
export const processBodies = new BodyAllowance();
