import { Worker } from 'node:worker_threads';

/** Slots of the shared memory the prober's thread writes and the test reads. */
const SLOWEST = 0;
const IN_FLIGHT_SINCE = 1;
const FAILURES = 2;
const WINDOW_START = 3;

/**
 * Probes /healthz from a thread of its own, so a slow answer is measured even while the test's own
 * thread is busy. Each probe opens a fresh connection. A window starts at `reset()`: only the time a
 * probe waits inside the window counts against it (a probe sent before the window counts from the
 * window's start, not from when it was sent, so a stall that ended before the case began is not
 * blamed on the case), and a probe still waiting when the window is read counts with its wait so far.
 * The thread writes the slowest answer of the window, the probe in flight and the failures into
 * shared memory, which the test reads without waiting on the thread.
 */
export class HealthProber {
  readonly #worker: Worker;
  readonly #shared: Int32Array;
  readonly #base = Date.now();

  constructor(origin: string, intervalMs = 50) {
    this.#shared = new Int32Array(new SharedArrayBuffer(16));
    this.#shared[IN_FLIGHT_SINCE] = -1;
    const url = new URL('/healthz', origin);
    this.#worker = new Worker(PROBER_SOURCE, { eval: true, workerData: { url: url.href, intervalMs, base: this.#base, shared: this.#shared } });
    this.#worker.unref();
  }

  #now(): number {
    return Date.now() - this.#base;
  }

  /** Starts a new window: the slowest answer and the failures are counted from now. */
  reset(): void {
    Atomics.store(this.#shared, WINDOW_START, this.#now());
    Atomics.store(this.#shared, SLOWEST, 0);
    Atomics.store(this.#shared, FAILURES, 0);
  }

  /** The slowest /healthz answer in this window, in ms: a probe still waiting counts with its wait (in the window) so far. */
  slowestMs(): number {
    const max = Atomics.load(this.#shared, SLOWEST);
    const since = Atomics.load(this.#shared, IN_FLIGHT_SINCE);
    const waiting = since < 0 ? 0 : this.#now() - Math.max(since, Atomics.load(this.#shared, WINDOW_START));
    return Math.max(max, waiting);
  }

  /** Probes that failed (refused, reset, not 200) in this window. */
  failures(): number {
    return Atomics.load(this.#shared, FAILURES);
  }

  async stop(): Promise<void> {
    await this.#worker.terminate();
  }
}

const PROBER_SOURCE = `
const { workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, intervalMs, base, shared } = workerData;
const [SLOWEST, IN_FLIGHT_SINCE, FAILURES, WINDOW_START] = [${SLOWEST}, ${IN_FLIGHT_SINCE}, ${FAILURES}, ${WINDOW_START}];
const now = () => Date.now() - base;
function probe() {
  const started = now();
  Atomics.store(shared, IN_FLIGHT_SINCE, started);
  const req = http.get(url, { agent: false, timeout: 60000 }, (res) => {
    res.resume();
    res.on('end', () => done(res.statusCode === 200));
  });
  req.on('error', () => done(false));
  req.on('timeout', () => req.destroy(new Error('timeout')));
  let finished = false;
  function done(ok) {
    if (finished) return;
    finished = true;
    const ended = now();
    const took = ended - Math.max(started, Atomics.load(shared, WINDOW_START));
    Atomics.store(shared, IN_FLIGHT_SINCE, -1);
    if (took > Atomics.load(shared, SLOWEST)) Atomics.store(shared, SLOWEST, took);
    if (!ok) Atomics.add(shared, FAILURES, 1);
    setTimeout(probe, intervalMs);
  }
}
probe();
`;
