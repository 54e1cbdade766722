import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph } from '../../src/serve/index.ts';

export interface GraphService {
  readonly origin: string;
  /** Stops the service and removes its data dir. */
  close(): Promise<void>;
}

/** `toolgraph serve --only graph` in this process, on file persistence in a fresh data dir, with the default settings. */
export async function startGraphService(): Promise<GraphService> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-hostile-'));
  const config = resolveConfig({ env: { HOME: dir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'file', TOOLGRAPH_DATA_DIR: dir } });
  const running = await startToolgraph({ config, logger: silentLogger(), only: ['graph'] });
  return {
    origin: running.origin,
    close: async () => {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface NativeAnswer {
  readonly result?: { readonly rows: unknown[][]; readonly version: number };
  readonly error?: { readonly code: string; readonly message: string; readonly details?: Record<string, unknown> };
}

/** POST /dispatch with method Cypher, as a client sends it. */
export async function cypher(origin: string, query: string, params: Record<string, unknown> = {}): Promise<NativeAnswer> {
  const response = await fetch(`${origin}/dispatch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query, params } } }),
  });
  if (response.status !== 200) throw new Error(`POST /dispatch answered ${response.status}`);
  return (await response.json()) as NativeAnswer;
}

/** The version of the demo graph, read through the same surface. */
export async function demoVersion(origin: string): Promise<number> {
  const answer = await cypher(origin, 'MATCH (n) RETURN count(*) AS n');
  if (answer.result === undefined) throw new Error(`reading the version failed: ${JSON.stringify(answer.error)}`);
  return answer.result.version;
}

export interface AttackOutcome {
  readonly answer: NativeAnswer;
  /** Milliseconds from sending the attack to its answer. */
  readonly answeredMs: number;
  /** The slowest /healthz answer while the attack ran (polled every 25 ms from the attack's start). */
  readonly healthzMaxMs: number;
  readonly healthzPolls: number;
  /** The largest heap growth seen (sampled every 10 ms), in bytes. */
  readonly heapGrowth: number;
}

/** Sends `query` and, while it runs, polls /healthz and samples the heap. */
export async function underAttack(origin: string, query: string, params: Record<string, unknown> = {}): Promise<AttackOutcome> {
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 10);
  let running = true;
  let healthzMaxMs = 0;
  let healthzPolls = 0;
  const poller = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${origin}/healthz`);
      await response.text();
      if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
      healthzMaxMs = Math.max(healthzMaxMs, performance.now() - started);
      healthzPolls++;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  // Handled here so a failed attack does not leave it unhandled; awaited below for its own failure.
  poller.catch(() => undefined);
  const started = performance.now();
  let answer: NativeAnswer;
  try {
    answer = await cypher(origin, query, params);
  } finally {
    running = false;
    clearInterval(sampler);
  }
  const answeredMs = performance.now() - started;
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  await poller;
  return { answer, answeredMs, healthzMaxMs, healthzPolls, heapGrowth: heapPeak - heapBefore };
}
