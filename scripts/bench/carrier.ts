/**
 * Carrier benchmark: many concurrent subscriptions in one server process, against graphql-yoga's
 * built-in SSE subscriptions carrying the same load (same schema, resolvers, query and data), and a
 * bare node:http SSE server as the floor a connection costs.
 *
 * Per side and round: a fresh server process; N clients subscribe to
 *   subscription { Person(first: 10) { id name age } }
 * and wait for their initial frame; the server reports RSS and heap after two full GCs (per
 * subscription: the growth over the idle server, divided by N); then M mutations, one at a time,
 * each timed from the commit request until every subscriber has the frame it causes (fan-out). The
 * sides take turns (A B A B, the order swapped every round) so load from other work on the machine
 * falls on all alike. Clients are raw node:http requests in this process; carrier clients send
 * envelopes signed beforehand (signing is not timed).
 * Usage: node scripts/bench/carrier.ts [--subs 10000] [--rounds 5] [--mutations 3] [--out FILE]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { signEnvelope, type SignedEnvelope } from '../../src/graph/carrier/index.ts';
import { median } from './bench-stats.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const SUBS = arg('--subs', 10_000);
const ROUNDS = arg('--rounds', 5);
const MUTATIONS = arg('--mutations', 3);
const OUT = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
const CONCURRENCY = 200;
const QUERY = 'subscription { Person(first: 10) { id name age } }';
const GRAPH = 'bench';
type Side = 'carrier' | 'yoga' | 'bare';
const SIDES: readonly Side[] = ['carrier', 'yoga', 'bare'];

interface Sample { rssPerSub: number; heapPerSub: number; fanoutMs: number[] }

/** A minimal SSE reader: counts `next` events per client. */
class Subscriber {
  frames = 0;
  #tail = '';
  readonly req: ClientRequest;
  constructor(port: number, path: string, headers: Record<string, string>, onFrame: (s: Subscriber) => void, onFail: (why: string) => void) {
    this.req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        onFail(`HTTP ${res.statusCode}`);
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = this.#tail + chunk;
        let start = 0;
        let cut: number;
        while ((cut = text.indexOf('\n\n', start)) !== -1) {
          if (text.startsWith('event: next', start)) {
            this.frames++;
            onFrame(this);
          }
          start = cut + 2;
        }
        this.#tail = text.slice(start);
      });
    });
    this.req.on('error', (error) => onFail(error.message));
    this.req.end();
  }
}

function message<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (m: { type: string }) => {
      if (m.type === type) {
        child.off('message', listener);
        resolve(m as T);
      }
    };
    child.on('message', listener);
  });
}

async function runSide(side: Side, jwksPath: string, envelopes: SignedEnvelope[]): Promise<Sample> {
  const child = fork(join(import.meta.dirname, 'carrier-server.ts'), ['--side', side, '--jwks', jwksPath], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await message<{ port: number; rss: number; heapUsed: number }>(child, 'ready');
  const subscribers: Subscriber[] = [];
  let waiting: { frames: number; left: number; resolve: () => void } | undefined;
  const onFrame = (s: Subscriber): void => {
    if (waiting && s.frames === waiting.frames && --waiting.left === 0) waiting.resolve();
  };
  const until = (frames: number, already: number): Promise<void> => new Promise((resolve) => {
    waiting = { frames, left: SUBS - already, resolve };
    if (waiting.left === 0) resolve();
  });
  let failed: string | undefined;
  // Connect with bounded concurrency; each slot waits for its subscriber's initial frame.
  let next = 0;
  const initial = until(1, 0);
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < SUBS && failed === undefined) {
      const i = next++;
      await new Promise<void>((resolve) => {
        const path = side === 'carrier' ? envelopes[i]!.path : `/graphql?query=${encodeURIComponent(QUERY)}`;
        const headers: Record<string, string> = side === 'carrier' ? { ...envelopes[i]!.headers } : { accept: 'text/event-stream' };
        const s = new Subscriber(ready.port, path, headers, (x) => {
          onFrame(x);
          if (x.frames === 1) resolve();
        }, (why) => {
          failed = why;
          resolve();
        });
        subscribers.push(s);
      });
    }
  }));
  if (failed !== undefined) throw new Error(`${side}: a subscription failed: ${failed}`);
  await initial;
  child.send({ type: 'measure' });
  const memory = await message<{ rss: number; heapUsed: number }>(child, 'memory');
  const fanoutMs: number[] = [];
  for (let m = 1; m <= MUTATIONS; m++) {
    const done = until(m + 1, 0);
    const started = performance.now();
    child.send({ type: 'mutate', n: m });
    await done;
    fanoutMs.push(performance.now() - started);
  }
  for (const s of subscribers) s.req.destroy();
  child.kill();
  await new Promise((resolve) => child.once('exit', resolve));
  return { rssPerSub: (memory.rss - ready.rss) / SUBS, heapPerSub: (memory.heapUsed - ready.heapUsed) / SUBS, fanoutMs };
}

const min = (values: number[]): number => Math.min(...values);

const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
const dir = mkdtempSync(join(tmpdir(), 'tg-bench-carrier-'));
const jwksPath = join(dir, 'jwks.json');
writeFileSync(jwksPath, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'EdDSA' }] }));

const samples: Record<Side, Sample[]> = { carrier: [], yoga: [], bare: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
  for (const side of order) {
    // Fresh envelopes every round: each carries a nonce that can be used once.
    const envelopes = side === 'carrier'
      ? await Promise.all(Array.from({ length: SUBS }, () => signEnvelope({ key: privateKey, alg: 'EdDSA', kid: 'bench', graph: GRAPH, query: QUERY, subject: 'bench', scopes: ['kg:read'], ttlSecs: 300 })))
      : [];
    const sample = await runSide(side, jwksPath, envelopes);
    samples[side].push(sample);
    process.stdout.write(`round ${round + 1}/${ROUNDS} ${side.padEnd(7)} rss ${(sample.rssPerSub / 1024).toFixed(1)} KiB/sub, heap ${(sample.heapPerSub / 1024).toFixed(1)} KiB/sub, fan-out ${sample.fanoutMs.map((t) => t.toFixed(0)).join(' / ')} ms\n`);
  }
}

const kib = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;
const ms = (n: number): string => `${n.toFixed(0)} ms`;
const stat = (side: Side, pick: (s: Sample) => number) => ({ min: min(samples[side].map(pick)), median: median(samples[side].map(pick)) });
const fanout = (s: Sample): number => median(s.fanoutMs);
const rows = [
  { measure: 'RSS per subscription', carrier: stat('carrier', (s) => s.rssPerSub), yoga: stat('yoga', (s) => s.rssPerSub), bare: stat('bare', (s) => s.rssPerSub), show: kib },
  { measure: 'heap per subscription', carrier: stat('carrier', (s) => s.heapPerSub), yoga: stat('yoga', (s) => s.heapPerSub), bare: stat('bare', (s) => s.heapPerSub), show: kib },
  { measure: 'fan-out, one mutation to every subscriber', carrier: stat('carrier', fanout), yoga: stat('yoga', fanout), bare: stat('bare', fanout), show: ms },
];
const ratios = (pick: (s: Sample) => number) => samples.carrier.map((s, i) => pick(s) / pick(samples.yoga[i]!));
process.stdout.write(`\n${SUBS} subscriptions, ${ROUNDS} rounds, ${MUTATIONS} mutations per round (min / median)\n`);
process.stdout.write('| measure | toolgraph carrier | graphql-yoga SSE (same run) | carrier / yoga | bare node:http SSE floor |\n|---|---|---|---|---|\n');
const ratioRows = [ratios((s) => s.rssPerSub), ratios((s) => s.heapPerSub), ratios(fanout)];
rows.forEach((row, i) => {
  const r = ratioRows[i]!;
  process.stdout.write(`| ${row.measure} | ${row.show(row.carrier.min)} / ${row.show(row.carrier.median)} | ${row.show(row.yoga.min)} / ${row.show(row.yoga.median)} | ${min(r).toFixed(2)}× / ${median(r).toFixed(2)}× | ${row.show(row.bare.min)} / ${row.show(row.bare.median)} |\n`);
});
const goals = { rssPerSubKiB: stat('carrier', (s) => s.rssPerSub).median / 1024, fanoutSpeedup: 1 / median(ratioRows[2]!) };
process.stdout.write(`goals: RSS per subscription ${goals.rssPerSubKiB.toFixed(1)} KiB (goal ≤ 15), fan-out ${goals.fanoutSpeedup.toFixed(2)}× faster than Yoga (goal ≥ 2)\n`);
if (OUT) writeFileSync(OUT, `${JSON.stringify({ subs: SUBS, rounds: ROUNDS, mutations: MUTATIONS, samples, goals }, null, 2)}\n`);
