// `npm run attacks -- [--root DIR] [--only c1,c2,…] [--heap-mb N] [--out FILE]`: replays the attacks of
// issue 15 (C1–C3, H1, H2) against a real `toolgraph serve` built in DIR (default: this checkout;
// point it at another checkout's build to compare), one fresh server and data directory per attack,
// and prints what happened: the answer (status and error code) or how the server died, how long the
// answer took, the server's peak RSS, and the longest /healthz answer time while the attack ran.
// The server runs with --max-old-space-size=N (default 1536) so an attack that would exhaust memory
// kills only that server, not the machine.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface Options {
  readonly root: string;
  readonly only: readonly string[] | undefined;
  readonly heapMb: number;
  readonly out: string | undefined;
}

function options(argv: readonly string[]): Options {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    root: resolve(value('--root') ?? '.'),
    only: value('--only')?.split(','),
    heapMb: Number(value('--heap-mb') ?? 1536),
    out: value('--out'),
  };
}

interface Outcome {
  readonly attack: string;
  readonly outcome: string;
  readonly answeredMs: number | null;
  readonly peakRssMb: number;
  readonly maxHealthzMs: string | null;
  readonly note?: string;
}

// ---- the server under attack --------------------------------------------------------------------

class Server {
  readonly child: ChildProcess;
  readonly port: Promise<number>;
  #stderr = '';
  #peakRssKb = 0;
  readonly #sampler: NodeJS.Timeout;
  readonly exited: Promise<number | null>;

  constructor(opts: Options, dataDir: string, fdLimit?: number) {
    const cli = join(opts.root, 'dist/src/cli/toolgraph.js');
    const argv = [process.execPath, `--max-old-space-size=${opts.heapMb}`, cli, 'serve', '--port', '0', '--data-dir', dataDir];
    // prlimit lowers the server's file-descriptor limit so the idle-connection attack reaches it with
    // one client process (whose own limit is the machine's).
    const [command, ...args] = fdLimit === undefined ? argv : ['prlimit', `--nofile=${fdLimit}`, '--', ...argv];
    this.child = spawn(command!, args, {
      env: { ...process.env, LOG_LEVEL: 'warn', XDG_CONFIG_HOME: dataDir, TOOLGRAPH_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { this.#stderr = (this.#stderr + chunk).slice(-4000); });
    let out = '';
    this.port = new Promise((resolvePort, reject) => {
      this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
        if (m) resolvePort(Number(m[1]));
        if (out.length > 100_000) out = out.slice(-10_000);
      });
      this.child.once('exit', () => reject(new Error(`server exited before listening: ${this.#stderr.slice(-500)}`)));
    });
    this.exited = new Promise((r) => this.child.once('exit', (code) => r(code)));
    this.#sampler = setInterval(() => this.sample(), 50);
  }

  sample(): void {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+)/.exec(status);
      if (hwm) this.#peakRssKb = Math.max(this.#peakRssKb, Number(hwm[1]));
    } catch { /* gone */ }
  }

  get peakRssMb(): number { return Math.round(this.#peakRssKb / 1024); }
  get alive(): boolean { return this.child.exitCode === null && this.child.signalCode === null; }
  get death(): string {
    if (/heap out of memory|Reached heap limit/.test(this.#stderr)) return 'died: heap out of memory';
    return `died: exit ${this.child.exitCode ?? this.child.signalCode}`;
  }

  async ready(): Promise<number> {
    const port = await this.port;
    for (let i = 0; i < 600; i++) {
      const r = await get(port, '/healthz', 2000).catch(() => undefined);
      if (r?.status === 200) return port;
      await sleep(100);
    }
    throw new Error('server never became ready');
  }

  async stop(): Promise<void> {
    clearInterval(this.#sampler);
    this.sample();
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

interface Answer { readonly status: number; readonly body: string }

function send(port: number, method: string, path: string, body: string | undefined, timeoutMs: number): Promise<Answer> {
  return new Promise((resolveAnswer, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => { if (size < 1_000_000) chunks.push(c); size += c.length; });
      res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

function get(port: number, path: string, timeoutMs: number): Promise<Answer> {
  return send(port, 'GET', path, undefined, timeoutMs);
}

/**
 * Polls /healthz every 100 ms while `work` runs; returns the longest answer time. A probe still
 * waiting when the work ends counts with the time it has waited so far, marked `+` (never answered).
 */
async function whileProbing<T>(port: number, work: () => Promise<T>): Promise<{ result: T; maxHealthzMs: string }> {
  let done = false;
  let max = 0;
  let inFlightSince: number | undefined;
  const probe = (async () => {
    while (!done) {
      inFlightSince = performance.now();
      try {
        await get(port, '/healthz', 600_000);
        max = Math.max(max, performance.now() - inFlightSince);
        inFlightSince = undefined;
      } catch {
        return;
      }
      await sleep(100);
    }
  })();
  try {
    const result = await work();
    const waiting = inFlightSince === undefined ? undefined : performance.now() - inFlightSince;
    return { result, maxHealthzMs: waiting !== undefined && waiting > max ? `${Math.round(waiting)}+` : String(Math.round(max)) };
  } finally {
    done = true;
    void probe;
  }
}

function describeAnswer(answer: Answer): string {
  let code: string | undefined;
  try {
    const json = JSON.parse(answer.body) as { error?: { code?: string }; errors?: { extensions?: { code?: string } }[]; data?: unknown };
    code = json.error?.code ?? json.errors?.[0]?.extensions?.code;
    if (code === undefined && json.data !== undefined) code = `data (${answer.body.length} bytes)`;
  } catch {
    code = `${answer.body.length} bytes`;
  }
  return `${answer.status} ${code ?? ''}`.trim();
}

async function attempt(server: Server, port: number, name: string, run: () => Promise<Answer>, note?: string): Promise<Outcome> {
  const t0 = performance.now();
  const { result, maxHealthzMs } = await whileProbing(port, async () => {
    try {
      return { answer: await run() };
    } catch (error) {
      return { error: error as Error };
    }
  });
  const answeredMs = Math.round(performance.now() - t0);
  await sleep(300);
  const outcome = 'answer' in result && result.answer !== undefined
    ? describeAnswer(result.answer)
    : server.alive ? `no answer (${result.error?.message})` : server.death;
  return { attack: name, outcome, answeredMs, peakRssMb: server.peakRssMb, maxHealthzMs, ...(note === undefined ? {} : { note }) };
}

// ---- the graphs the attacks need ----------------------------------------------------------------

function hubGraphFile(dir: string, hubs: number, leaves: number): string {
  const lines: string[] = [];
  for (let h = 0; h < hubs; h++) lines.push(JSON.stringify({ label: 'Hub', id: `hub-${h}`, props: { name: `hub ${h}` } }));
  for (let l = 0; l < leaves; l++) lines.push(JSON.stringify({ label: 'Leaf', id: `leaf-${l}`, props: { n: l } }));
  for (let h = 0; h < hubs; h++) {
    for (let l = 0; l < leaves; l++) {
      lines.push(JSON.stringify({ src: `hub-${h}`, tgt: `leaf-${l}`, type: 'LINK' }));
      lines.push(JSON.stringify({ src: `leaf-${l}`, tgt: `hub-${h}`, type: 'BACK' }));
    }
  }
  const file = join(dir, 'hub.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function importGraph(opts: Options, dataDir: string, graph: string, file: string): void {
  const cli = join(opts.root, 'dist/src/cli/toolgraph.js');
  const r = spawnSync(process.execPath, [cli, 'graph', 'import', graph, file, '--create', '--data-dir', dataDir], { encoding: 'utf8', env: { ...process.env, XDG_CONFIG_HOME: dataDir } });
  if (r.status !== 0) throw new Error(`import failed: ${r.stderr}`);
}

const graphql = (port: number, graph: string, query: string, variables?: unknown, timeoutMs = 120_000) =>
  send(port, 'POST', `/graphql/${graph}`, JSON.stringify({ query, ...(variables === undefined ? {} : { variables }) }), timeoutMs);

const cypher = (port: number, graph: string, query: string, params?: unknown, timeoutMs = 240_000) =>
  send(port, 'POST', '/dispatch', JSON.stringify({ id: 1, graph, method: { Cypher: { query, ...(params === undefined ? {} : { params }) } } }), timeoutMs);

// ---- the attacks --------------------------------------------------------------------------------

type Attack = (opts: Options, dir: string) => Promise<Outcome[]>;

async function withServer(opts: Options, dir: string, prepare: (dataDir: string) => void, body: (server: Server, port: number, dataDir: string) => Promise<Outcome[]>, fdLimit?: number): Promise<Outcome[]> {
  const dataDir = join(dir, 'data');
  prepare(dataDir);
  const server = new Server(opts, dataDir, fdLimit);
  try {
    const port = await server.ready();
    return await body(server, port, dataDir);
  } finally {
    await server.stop();
  }
}

const ATTACKS: Record<string, { readonly about: string; readonly run: Attack }> = {
  c1: {
    about: 'GraphQL fan-out over a 10,000-leaf hub, and 28,000 _entities representations',
    run: (opts, dir) => withServer(opts, dir, (d) => importGraph(opts, d, 'hub', hubGraphFile(dir, 3, 10_000)), async (server, port) => {
      const out: Outcome[] = [];
      out.push(await attempt(server, port, 'C1 { Hub { LINK { BACK { LINK { id } } } } } (3 hubs)', () => graphql(port, 'hub', '{ Hub { LINK { BACK { LINK { id } } } } }')));
      if (!server.alive) return out;
      const representations = Array.from({ length: 28_000 }, () => ({ __typename: 'Hub', id: 'hub-0' }));
      out.push(await attempt(server, port, 'C1 _entities × 28,000 selecting LINK { id }', () => graphql(port, 'hub',
        'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Hub { LINK { id } } } }', { r: representations })));
      if (!server.alive) return out;
      out.push(await attempt(server, port, 'C1 Hub { LINK(first: $n) { BACK { LINK { id } } } } with $n = 1e6', () => graphql(port, 'hub',
        'query ($n: Int) { Hub { LINK(first: $n) { BACK { LINK { id } } } } }', { n: 1_000_000 })));
      return out;
    }),
  },
  c2: {
    about: 'Cypher collect of a 900 KB parameter over a cross product (stock demo graph)',
    run: (opts, dir) => withServer(opts, dir, () => {}, async (server, port) => [
      await attempt(server, port, 'C2 MATCH (a),(b) RETURN collect($p) AS x, $p 900 KB', () => cypher(port, 'demo', 'MATCH (a),(b) RETURN collect($p) AS x', { p: 'x'.repeat(900_000) })),
    ]),
  },
  c3: {
    about: 'Cypher writes over a three-way cross product (stock demo graph)',
    run: async (opts, dir) => {
      const props = Array.from({ length: 60 }, (_, i) => `k${i}: ${i}`).join(', ');
      const first = await withServer(opts, join(dir, 'a'), () => {}, async (server, port) => [
        await attempt(server, port, 'C3 MATCH (a),(b),(c) SET a += {k0…k59}', () => cypher(port, 'demo', `MATCH (a),(b),(c) SET a += {${props}}`)),
      ]);
      const second = await withServer(opts, join(dir, 'b'), () => {}, async (server, port) => [
        await attempt(server, port, 'C3 MATCH (a),(b),(c) SET a.tmpcount = 1', () => cypher(port, 'demo', 'MATCH (a),(b),(c) SET a.tmpcount = 1')),
      ]);
      return [...first, ...second];
    },
  },
  h1: {
    about: 'schema bloat: one createNode with 20,000 properties; CREATE of 2,900 new labels, seven times; restart',
    run: async (opts, dir) => {
      const out: Outcome[] = [];
      const dataDir = join(dir, 'data');
      const server = new Server(opts, dataDir);
      try {
        const port = await server.ready();
        const props = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, i]));
        out.push(await attempt(server, port, 'H1 createNode(label: "Bloat", 20,000 props)', () => graphql(port, 'demo',
          'mutation ($p: JSON!) { createNode(label: "Bloat", id: "bloat-1", props: $p) { id } }', { p: props })));
        if (!server.alive) return out;
        out.push(await attempt(server, port, 'H1 the next request after it', () => graphql(port, 'demo', '{ Person(first: 1) { name } }')));
        for (let s = 0; s < 7 && server.alive; s++) {
          const labels = Array.from({ length: 2_900 }, (_, i) => `(:L${s}_${i})`).join(',');
          out.push(await attempt(server, port, `H1 CREATE of 2,900 new labels, statement ${s + 1}/7`, () => cypher(port, 'demo', `CREATE ${labels}`)));
        }
      } finally {
        await server.stop();
      }
      const t0 = performance.now();
      const again = new Server(opts, dataDir);
      try {
        await again.ready();
        out.push({ attack: 'H1 restart over the store', outcome: 'ready', answeredMs: Math.round(performance.now() - t0), peakRssMb: again.peakRssMb, maxHealthzMs: null });
      } catch (error) {
        out.push({ attack: 'H1 restart over the store', outcome: `failed: ${(error as Error).message.slice(0, 120)}`, answeredMs: null, peakRssMb: again.peakRssMb, maxHealthzMs: null });
      } finally {
        await again.stop();
      }
      return out;
    },
  },
  h2: {
    about: 'idle connections that never send a byte, on the main port (server fd limit 4096)',
    run: (opts, dir) => withServer(opts, dir, () => {}, async (server, port) => {
      const sockets: Socket[] = [];
      const count = 6_000;
      let opened = 0;
      let refused = 0;
      for (let i = 0; i < count; i++) {
        const socket = connect({ host: '127.0.0.1', port });
        socket.on('error', () => { refused++; });
        socket.on('connect', () => { opened++; });
        sockets.push(socket);
        if (i % 500 === 499) await sleep(20);
      }
      await sleep(2000);
      const stillOpenAtStart = sockets.filter((s) => !s.destroyed && !s.closed).length;
      // Five probes a second apart: how many answered, and the slowest answer.
      let answered = 0;
      let slowest = 0;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        try {
          const r = await get(port, '/healthz', 3000);
          if (r.status === 200) answered++;
          slowest = Math.max(slowest, performance.now() - t0);
        } catch { /* refused or reset */ }
        await sleep(1000);
      }
      const health = `${answered}/5 answered 200 (slowest ${Math.round(slowest)} ms)`;
      const dispatch = await cypher(port, 'demo', 'RETURN 1 AS one', undefined, 5000).then(describeAnswer, (e: Error) => `no answer (${e.message})`);
      await sleep(15_000);
      const openAfter15s = sockets.filter((s) => !s.destroyed && !s.closed).length;
      for (const s of sockets) s.destroy();
      return [{
        attack: `H2 ${count} idle connections`, outcome: `opened ${opened}, refused ${refused}; /healthz ${health}; /dispatch ${dispatch}`,
        answeredMs: null, peakRssMb: server.peakRssMb, maxHealthzMs: null,
        note: `open after 2 s: ${stillOpenAtStart}, after 17 s: ${openAfter15s}`,
      }];
    }, 4096),
  },
};

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const names = opts.only ?? Object.keys(ATTACKS);
  const results: Outcome[] = [];
  for (const name of names) {
    const attack = ATTACKS[name];
    if (attack === undefined) throw new Error(`unknown attack ${name}; known: ${Object.keys(ATTACKS).join(', ')}`);
    process.stderr.write(`${name}: ${attack.about}\n`);
    const dir = mkdtempSync(join(tmpdir(), `toolgraph-attack-${name}-`));
    try {
      for (const r of await attack.run(opts, dir)) {
        results.push(r);
        process.stderr.write(`  ${JSON.stringify(r)}\n`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const table = ['| attack | outcome | answered (ms) | peak RSS (MB) | max /healthz (ms) |', '|---|---|---|---|---|',
    ...results.map((r) => `| ${r.attack} | ${r.outcome}${r.note ? ` (${r.note})` : ''} | ${r.answeredMs ?? '—'} | ${r.peakRssMb} | ${r.maxHealthzMs ?? '—'} |`)];
  process.stdout.write(`${table.join('\n')}\n`);
  if (opts.out) writeFileSync(opts.out, JSON.stringify(results, null, 2));
}

await main();
