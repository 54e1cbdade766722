import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CryptoKey } from 'jose';
import { signEnvelope, type SignedEnvelope } from '../../src/graph/carrier/index.ts';
import { generateSigner } from '../graph/carrier/carrier-fixture.ts';
import { freePort } from '../support/free-port.ts';
import { forkServerProcess } from '../support/server-process.ts';
import { WORK_GRAPH, type WorkChildMessage, type WorkParentMessage, type WorkReadyMessage, type WorkServerSpec } from './carrier-work-server.ts';

export interface WorkTarget {
  readonly origin: string;
  readonly carrier: string;
  /** A signed carrier request for the hub graph. */
  sign(query: string): Promise<SignedEnvelope>;
  /** The server's resident set now and its peak, in bytes. */
  rss(): Promise<{ bytes: number; peakBytes: number }>;
  close(): Promise<void>;
}

const SERVER_ENTRY = fileURLToPath(new URL('./carrier-work-server.ts', import.meta.url));

/** carrier-work-server.ts in a child process: the product with the carrier on, over `spec`'s hub graph. */
export async function startWorkTarget(spec: WorkServerSpec): Promise<WorkTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-carrier-work-keys-'));
  const { privateKey, jwks } = await generateSigner();
  const jwksPath = join(dir, 'jwks.json');
  writeFileSync(jwksPath, JSON.stringify(jwks));
  const port = await freePort();
  const env = { SERVICE_GRAPHQL_ADDR: `127.0.0.1:${port}`, SERVICE_GRAPHQL_SIGNER_JWKS: jwksPath, ...spec.env };
  const server = await forkServerProcess<WorkReadyMessage, WorkChildMessage>(SERVER_ENTRY, {
    // A heap bound, so a build that runs away fails this test instead of the machine.
    name: 'the carrier-work server', execArgv: ['--max-old-space-size=2048'], env: { WORK_SERVER_SPEC: JSON.stringify({ ...spec, env } satisfies WorkServerSpec) },
  });
  const key: CryptoKey = privateKey;
  return {
    origin: server.ready.origin,
    carrier: server.ready.carrier,
    sign: (query) => signEnvelope({ key, alg: 'EdDSA', kid: 'signer-1', graph: WORK_GRAPH, query, subject: 'ada', scopes: ['query:graphql'] }),
    rss: () => server.ask((id): WorkParentMessage => ({ rss: id }), (m, id) => (m.rss === id ? { bytes: m.bytes, peakBytes: m.peakBytes } : undefined)),
    close: () => server.close(),
  };
}

/** Most probes one window records; the rest only count towards the slowest. */
const MAX_SAMPLES = 4096;

/**
 * Probes /healthz back to back, each on a fresh connection, from a thread of its own (the test's own
 * thread parses frames meanwhile), and records every answer's time while a window is open. A probe
 * still waiting when the window closes counts with its wait so far: a stall that outlasts the window
 * is not lost.
 */
export class HealthSampler {
  readonly #worker: Worker;
  /** [0] open flag, [1] count, [2] in-flight since (ms, -1 none), [3..] samples in ms. */
  readonly #shared = new Int32Array(new SharedArrayBuffer(4 * (3 + MAX_SAMPLES)));
  readonly #base = Date.now();

  constructor(origin: string) {
    this.#shared[2] = -1;
    this.#worker = new Worker(SAMPLER_SOURCE, { eval: true, workerData: { url: new URL('/healthz', origin).href, base: this.#base, shared: this.#shared, max: MAX_SAMPLES } });
    this.#worker.unref();
  }

  /** Opens a window: samples are recorded from now. */
  open(): void {
    Atomics.store(this.#shared, 1, 0);
    Atomics.store(this.#shared, 0, 1);
  }

  /** Closes the window and answers its samples (ms), the probe still waiting included. */
  close(): number[] {
    Atomics.store(this.#shared, 0, 0);
    const count = Math.min(Atomics.load(this.#shared, 1), MAX_SAMPLES);
    const samples = Array.from(this.#shared.subarray(3, 3 + count));
    const since = Atomics.load(this.#shared, 2);
    if (since >= 0) samples.push(Date.now() - this.#base - since);
    return samples;
  }

  async stop(): Promise<void> {
    await this.#worker.terminate();
  }
}

const SAMPLER_SOURCE = `
const { workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, base, shared, max } = workerData;
const now = () => Date.now() - base;
function probe() {
  const started = now();
  Atomics.store(shared, 2, started);
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    Atomics.store(shared, 2, -1);
    if (Atomics.load(shared, 0) === 1) {
      const i = Atomics.add(shared, 1, 1);
      if (i < max) Atomics.store(shared, 3 + i, now() - started);
    }
    setTimeout(probe, 5);
  };
  const req = http.get(url, { agent: false, timeout: 60000 }, (res) => { res.resume(); res.on('end', done); });
  req.on('error', done);
  req.on('timeout', () => req.destroy(new Error('timeout')));
}
probe();
`;

/** The median and the largest of some samples. */
export function medianAndMax(samples: readonly number[]): { p50: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]! };
}
