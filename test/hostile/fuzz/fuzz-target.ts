import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { HealthProber } from './health-prober.ts';
import { forkServerProcess } from '../../support/server-process.ts';
import type { ChildMessage, ParentMessage, ReadyMessage } from './fuzz-server.ts';
import { cypherBody } from './hostile-graph.ts';

export { BLOB_BYTES, HOSTILE_GRAPH, HUBS, LEAVES, WIDE_PROPERTIES, cypherBody } from './hostile-graph.ts';

export interface FuzzTarget {
  readonly origin: string;
  readonly prober: HealthProber;
  /** TOOLGRAPH_QUERY_TIMEOUT_MS of the server: every case must end within twice this. */
  readonly timeBudgetMs: number;
  /** The server's resident set size now, in bytes (what the machine pays, heap or not). */
  rss(): number;
  /** Whether the server process is still running. */
  alive(): boolean;
  /** The server's heap used after a full GC, in bytes. */
  heapAfterGc(): Promise<number>;
  /** Drops the hostile graph and imports it again as it was at the start (what earlier writes added is gone). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const SERVER_ENTRY = fileURLToPath(new URL('./fuzz-server.ts', import.meta.url));

/**
 * The product's graph services in a child process of their own (fuzz-server.ts: memory store, the
 * hostile graph imported), and a prober on its /healthz. The server is not run in this process: the
 * test runner's own work (building cases, reading answers, its garbage collection) would otherwise
 * stall the server's event loop and be counted against it.
 */
export async function startFuzzTarget(env: Record<string, string> = {}, options: { readonly execArgv?: readonly string[] } = {}): Promise<FuzzTarget> {
  const timeBudgetMs = Number(env['TOOLGRAPH_QUERY_TIMEOUT_MS'] ?? 2000);
  const server = await forkServerProcess<ReadyMessage, ChildMessage>(SERVER_ENTRY, {
    name: 'the fuzz server',
    // FUZZ_SERVER_EXEC_ARGV adds Node/V8 flags for experiments (e.g. --single-threaded-gc on a machine
    // short of cores), and a test its own (a heap limit, so that a server that would eat the machine dies early instead).
    execArgv: [...(process.env['FUZZ_SERVER_EXEC_ARGV'] ?? '').split(' ').filter(Boolean), ...(options.execArgv ?? [])],
    env: { FUZZ_SERVER_ENV: JSON.stringify({ TOOLGRAPH_QUERY_TIMEOUT_MS: String(timeBudgetMs), ...env }) },
  });
  const origin = server.ready.origin;
  const prober = new HealthProber(origin);
  return {
    origin,
    prober,
    timeBudgetMs,
    rss: () => server.rss(),
    alive: () => server.alive(),
    heapAfterGc: () => server.ask((id): ParentMessage => ({ heap: id }), (m, id) => ('heap' in m && m.heap === id ? m.used : undefined)),
    reset: () => server.ask((id): ParentMessage => ({ reset: id }), (m, id) => ('reset' in m && m.reset === id ? true : undefined)).then(() => undefined),
    async close() {
      await prober.stop();
      await server.close();
    },
  };
}

export interface FuzzAnswer {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
  /** The Retry-After header's seconds (1 when absent). */
  readonly retryAfterSecs: number;
}

/**
 * One POST on a connection of its own. The body is read whole, but only its first 64 KiB are kept
 * (a refusal is small; a large answer need not be held by the test). Gives up after `timeoutMs`.
 */
export function post(origin: string, path: string, body: string, timeoutMs: number): Promise<FuzzAnswer> {
  const url = new URL(path, origin);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let kept = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (kept.length < 65_536) kept += chunk.slice(0, 65_536 - kept.length);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: kept, ms: performance.now() - started, retryAfterSecs: Number(res.headers['retry-after'] ?? 1) || 1 }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The graph's version, read through /dispatch. A 503 TG_OVERLOADED with Retry-After is a legitimate
 * answer of a server shedding load (it is how the server protects itself, not a finding): the read is
 * retried after the time it asks for, for up to 30 s.
 */
export async function graphVersion(origin: string): Promise<number> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const answer = await post(origin, '/dispatch', cypherBody('RETURN 1 AS one'), 30_000);
    const json = JSON.parse(answer.body) as { result?: { version?: number }; error?: { code?: string } };
    const version = json.result?.version;
    if (typeof version === 'number') return version;
    if (json.error?.code === 'TG_OVERLOADED' && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * answer.retryAfterSecs));
      continue;
    }
    throw new Error(`no version in ${answer.body.slice(0, 300)}`);
  }
}
