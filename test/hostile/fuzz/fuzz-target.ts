import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { resolveConfig } from '../../../src/config/index.ts';
import { importJsonlFile } from '../../../src/graph/jsonl/index.ts';
import { silentLogger } from '../../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../../src/serve/index.ts';
import { HealthProber } from './health-prober.ts';

/** The graph the fuzzer attacks: hubs of 10,000 edges each way, a 1 MB string, a node of many properties. */
export const HOSTILE_GRAPH = 'hostile';
export const HUBS = 3;
export const LEAVES = 10_000;
export const BLOB_BYTES = 1_000_000;
export const WIDE_PROPERTIES = 1_000;

export interface FuzzTarget {
  readonly running: RunningToolgraph;
  readonly origin: string;
  readonly prober: HealthProber;
  /** TOOLGRAPH_QUERY_TIMEOUT_MS of the server: every case must end within twice this. */
  readonly timeBudgetMs: number;
  /** Heap used after a full GC, in bytes. */
  heapAfterGc(): number;
  close(): Promise<void>;
}

/** A full GC on demand, without starting the process with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function hostileLines(): string[] {
  const lines: string[] = [];
  for (let h = 0; h < HUBS; h++) {
    lines.push(JSON.stringify({ label: 'Hub', id: `hub-${h}`, props: { name: `hub ${h}`, ...(h === 0 ? { blob: 'b'.repeat(BLOB_BYTES) } : {}) } }));
  }
  for (let l = 0; l < LEAVES; l++) lines.push(JSON.stringify({ label: 'Leaf', id: `leaf-${l}`, props: { n: l, s: `leaf ${l}` } }));
  lines.push(JSON.stringify({ label: 'Wide', id: 'wide-0', props: Object.fromEntries(Array.from({ length: WIDE_PROPERTIES }, (_, i) => [`w${i}`, i])) }));
  for (let h = 0; h < HUBS; h++) {
    for (let l = 0; l < LEAVES; l++) {
      lines.push(JSON.stringify({ src: `hub-${h}`, tgt: `leaf-${l}`, type: 'LINK' }));
      lines.push(JSON.stringify({ src: `leaf-${l}`, tgt: `hub-${h}`, type: 'BACK' }));
    }
  }
  return lines;
}

/** The product's graph services in this process (memory store) with the hostile graph imported, and a prober on /healthz. */
export async function startFuzzTarget(env: Record<string, string> = {}): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-fuzz-'));
  const timeBudgetMs = Number(env['TOOLGRAPH_QUERY_TIMEOUT_MS'] ?? 2000);
  const config = resolveConfig({
    env: { HOME: dir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL: 'silent', TOOLGRAPH_QUERY_TIMEOUT_MS: String(timeBudgetMs), ...env },
  });
  const running = await startToolgraph({ config, logger: silentLogger(), only: ['graph'] });
  const file = join(dir, 'hostile.jsonl');
  writeFileSync(file, `${hostileLines().join('\n')}\n`);
  await importJsonlFile(running.engine!, HOSTILE_GRAPH, file, { create: true });
  await running.settled();
  const prober = new HealthProber(running.origin);
  const gc = collector();
  return {
    running,
    origin: running.origin,
    prober,
    timeBudgetMs,
    heapAfterGc() {
      gc();
      return process.memoryUsage().heapUsed;
    },
    async close() {
      await prober.stop();
      await running.close({ graceMs: 0 });
      rmSync(dir, { recursive: true, force: true });
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
    const answer = await post(origin, '/dispatch', JSON.stringify({ id: 1, graph: HOSTILE_GRAPH, method: { Cypher: { query: 'RETURN 1 AS one' } } }), 30_000);
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
