import { Worker } from 'node:worker_threads';

/**
 * Probes /healthz from a thread of its own, so a stalled event loop in the server (which shares this
 * process with the test) shows as a slow answer instead of a late probe. Each probe opens a fresh
 * connection; the worker writes the slowest answer since the last `reset()` and the start of the probe
 * in flight into shared memory, which the test reads without waiting on the worker.
 */
export class HealthProber {
  readonly #worker: Worker;
  readonly #shared: Int32Array;
  readonly #base = Date.now();

  constructor(origin: string, intervalMs = 50) {
    this.#shared = new Int32Array(new SharedArrayBuffer(16));
    this.#shared[1] = -1;
    const url = new URL('/healthz', origin);
    this.#worker = new Worker(PROBER_SOURCE, { eval: true, workerData: { url: url.href, intervalMs, base: this.#base, shared: this.#shared } });
    this.#worker.unref();
  }

  /** Starts a new window: the slowest answer is counted from now. */
  reset(): void {
    Atomics.store(this.#shared, 0, 0);
    Atomics.store(this.#shared, 2, 0);
  }

  /** The slowest /healthz answer in this window, in ms: a probe still waiting counts with its wait so far. */
  slowestMs(): number {
    const max = Atomics.load(this.#shared, 0);
    const since = Atomics.load(this.#shared, 1);
    const waiting = since < 0 ? 0 : Date.now() - this.#base - since;
    return Math.max(max, waiting);
  }

  /** Probes that failed (refused, reset, not 200) in this window. */
  failures(): number {
    return Atomics.load(this.#shared, 2);
  }

  async stop(): Promise<void> {
    await this.#worker.terminate();
  }
}

const PROBER_SOURCE = `
const { workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, intervalMs, base, shared } = workerData;
const now = () => Date.now() - base;
function probe() {
  const started = now();
  Atomics.store(shared, 1, started);
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
    const took = now() - started;
    Atomics.store(shared, 1, -1);
    if (took > Atomics.load(shared, 0)) Atomics.store(shared, 0, took);
    if (!ok) Atomics.add(shared, 2, 1);
    setTimeout(probe, intervalMs);
  }
}
probe();
`;
