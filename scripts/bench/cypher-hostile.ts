/**
 * Hostile Cypher against a real `toolgraph serve` process (issue 15, C2 and C3): for each attack,
 * the time to its answer, the server's peak RSS (VmHWM) and the slowest /healthz answer while it ran
 * (polled every 50 ms). The server runs from `--root` (default: this checkout), on file persistence
 * in a fresh data dir, with `--max-old-space-size=1024` so an attack that balloons dies instead of
 * taking the machine; each attack gets a fresh server and at most `--timeout` seconds.
 * Usage: node scripts/bench/cypher-hostile.ts [--root DIR] [--only c2,c3a,c3b,at-cap] [--timeout 120] [--out FILE]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { arg } from './bench-args.ts';

const ROOT = resolve(arg('--root') ?? join(import.meta.dirname, '..', '..'));
const TIMEOUT_S = Number(arg('--timeout') ?? 120);
const OUT = arg('--out');
const ONLY = arg('--only')?.split(',');

interface Attack {
  readonly name: string;
  readonly query: string;
  readonly params?: Record<string, unknown>;
}

const big = 'x'.repeat(900 * 1024);
const sixtyKeys = Array.from({ length: 60 }, (_, i) => `k${i}: ${i}`).join(', ');

const ATTACKS: Attack[] = [
  { name: 'c2', query: 'MATCH (a),(b) RETURN collect($p) AS x', params: { p: big } },
  { name: 'c3a', query: `MATCH (a),(b),(c) SET a += {${sixtyKeys}}` },
  { name: 'c3b', query: 'MATCH (a),(b),(c) SET a.tmpcount = 1' },
  // Not an attack: a write just inside the default change cap (2 × 94² = 17,672 changes), to see what
  // a commit near the caps costs the event loop.
  { name: 'at-cap', query: 'MATCH (a),(b),(c) WHERE c.id IN $ids SET a.atcap = 1', params: { ids: ['person-001', 'person-002'] } },
];

function peakRssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Math.round(Number(kb) / 1024);
  } catch {
    return Number.NaN;
  }
}

async function startServer(dataDir: string): Promise<{ child: ChildProcess; origin: string }> {
  const node = join(ROOT, 'node_modules', '.bin', 'node');
  const child = spawn(node, ['--max-old-space-size=1024', join(ROOT, 'src', 'cli', 'toolgraph.ts'), 'serve', '--only', 'graph'], {
    cwd: ROOT,
    env: { ...process.env, HOME: dataDir, TOOLGRAPH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const origin = await new Promise<string>((done, fail) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(text);
      if (found) done(found[1]!);
    });
    child.once('exit', (code) => fail(new Error(`server exited with ${code} before listening`)));
  });
  for (;;) {
    const ok = await fetch(`${origin}/healthz`).then((r) => r.ok, () => false);
    if (ok) return { child, origin };
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function version(origin: string): Promise<number | null> {
  const body = await fetch(`${origin}/dispatch`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: 'MATCH (n) RETURN count(*)' } } }),
  }).then((r) => r.json() as Promise<{ result?: { version: number } }>, () => null);
  return body?.result?.version ?? null;
}

async function run(attack: Attack): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tg-hostile-'));
  const { child, origin } = await startServer(dataDir);
  const before = await version(origin);
  let healthMax = 0;
  let healthFailures = 0;
  let polling = true;
  // VmHWM is gone with the process: read it while it lives.
  let peak = peakRssMiB(child.pid!);
  const sampler = setInterval(() => {
    const now = peakRssMiB(child.pid!);
    if (!Number.isNaN(now)) peak = Math.max(peak, now);
  }, 25);
  const poller = (async () => {
    while (polling) {
      const t = performance.now();
      const ok = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_S * 1000) }).then((r) => r.ok, () => false);
      healthMax = Math.max(healthMax, performance.now() - t);
      if (!ok) healthFailures++;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const t0 = performance.now();
  let outcome: string;
  try {
    const response = await fetch(`${origin}/dispatch`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 2, graph: 'demo', method: { Cypher: { query: attack.query, params: attack.params ?? {} } } }),
      signal: AbortSignal.timeout(TIMEOUT_S * 1000),
    });
    const text = await response.text();
    const body = JSON.parse(text) as { result?: unknown; error?: { code: string; details?: unknown } };
    outcome = body.error ? `${body.error.code} ${JSON.stringify(body.error.details)}` : `result (${text.length} bytes)`;
  } catch (error) {
    // A dead server's exit is reported a moment after its socket closes.
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => { child.once('exit', r); setTimeout(r, 2000); });
    outcome = child.exitCode !== null || child.signalCode !== null ? `server died (${child.exitCode ?? child.signalCode})` : `no answer (${(error as Error).name})`;
  }
  const answeredMs = performance.now() - t0;
  const last = peakRssMiB(child.pid!);
  if (!Number.isNaN(last)) peak = Math.max(peak, last);
  clearInterval(sampler);
  polling = false;
  await poller;
  const after = child.exitCode === null ? await version(origin) : null;
  child.kill('SIGKILL');
  await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
  rmSync(dataDir, { recursive: true, force: true });
  return {
    attack: attack.name, outcome, 'answer ms': Math.round(answeredMs), 'peak RSS MiB': peak,
    'healthz max ms': Math.round(healthMax), 'healthz failures': healthFailures, 'version before/after': `${before}/${after}`,
  };
}

const rows: Record<string, unknown>[] = [];
for (const attack of ATTACKS) {
  if (ONLY && !ONLY.includes(attack.name)) continue;
  rows.push(await run(attack));
}
console.log(`code: ${ROOT}`);
console.table(rows);
if (OUT) await writeFile(OUT, `${JSON.stringify({ bench: 'cypher-hostile', root: ROOT, rows }, null, 2)}\n`);
