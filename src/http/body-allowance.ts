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

/** A body being received, as the deadline sweep sees it. */
export interface ReceivingBody {
  /** `performance.now()` past which the body is cut. */
  readonly deadline: number;
  /** Called once, by the sweep, when the deadline has passed: the reader refuses the body. */
  expire(): void;
}

/**
 * What request bodies hold while they arrive, for the whole process: the bytes every body reader
 * (readBody) keeps, counted against one cap, and the deadline of each, cut by one sweep. A client
 * that opens many connections and sends all but the last byte of each body, or sends nothing more,
 * holds at most the cap, for at most the deadline: past the cap a body is refused (503
 * TG_BODY_MEMORY_FULL with Retry-After), past the deadline it is cut (408 TG_BODY_TIMEOUT).
 */
export class BodyAllowance {
  #limits: BodyLimits;
  /** Bytes held by bodies being received right now (the capacity of their buffers). */
  #held = 0;
  readonly #receiving = new Set<ReceivingBody>();
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

  /** Takes new limits (serve sets the settings once, at start-up); bodies already arriving keep their deadlines. */
  configure(limits: BodyLimits): void {
    this.#limits = limits;
    this.#stopSweeper();
    if (this.#receiving.size > 0) this.#startSweeper();
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

  /** A body's deadline from now (one clock reading). */
  deadlineFromNow(): number {
    return performance.now() + this.#limits.timeoutMs;
  }

  /** Cuts `body` at its deadline unless `unwatch` comes first. */
  watch(body: ReceivingBody): void {
    this.#receiving.add(body);
    if (this.#sweeper === undefined) this.#startSweeper();
  }

  unwatch(body: ReceivingBody): void {
    this.#receiving.delete(body);
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
    // A quarter of the deadline, at most a second (as node:http checks its own deadlines): a body is cut
    // at most that late. One timer for every body: none is set or cleared per request.
    const period = Math.max(5, Math.min(1000, Math.floor(this.#limits.timeoutMs / 4)));
    this.#idleSweeps = 0;
    this.#sweeper = setInterval(() => this.#sweep(), period);
    this.#sweeper.unref();
  }

  #stopSweeper(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #sweep(): void {
    if (this.#receiving.size === 0) {
      if (++this.#idleSweeps >= 2) this.#stopSweeper();
      return;
    }
    this.#idleSweeps = 0;
    const now = performance.now();
    for (const body of this.#receiving) {
      if (body.deadline > now) continue;
      this.#receiving.delete(body);
      body.expire();
    }
  }
}

/**
 * The process's own allowance: memory is the process's, so one cap serves every listener and route
 * (readBody counts against it unless given another). serve configures it from the settings.
 */
export const processBodies = new BodyAllowance();
