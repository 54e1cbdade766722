// `npm run bench -- <suite ...|all> [--out DIR] [--option value ...]`: runs benchmark suites one after
// another (never in parallel: the machines are small and noisy). Each suite prints a table of ratios
// against a peer measured in the same run; with --out DIR each also writes DIR/<suite>.json. Other
// options go to every suite named (`npm run bench -- engine --skip churn --rounds 7`). With no suite
// named it lists the suites and runs nothing.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** One line per suite: its name, the script beside this file, what it measures. */
const SUITES: Record<string, { readonly script: string; readonly about: string }> = {
  catalogue: { script: 'catalogue.ts', about: 'manifest validation and schema fetch/verify against ajv and a plain GET + SHA-256' },
  engine: { script: 'engine.ts', about: 'graph engine: scan + filter + 2 BFS steps and memory against direct references; insert/delete at scale' },
  persist: { script: 'persist.ts', about: 'file and postgres persistence: batches per second against fs + fdatasync and plain pg INSERTs' },
  snapshot: { script: 'snapshot.ts', about: 'snapshot of a large graph (SNAPSHOT_BENCH_NODES): time, event-loop stall, heap/RSS growth, commit latency meanwhile; recovery' },
  schema: { script: 'schema.ts', about: 'schema growth over HTTP: the issue\'s hostile writes (refused by the caps), schema changes at the caps (stall, RSS), restart at the caps' },
  import: { script: 'import.ts', about: 'JSON Lines import lines/s against JSON.parse of each line; commit latency with the catalogue watching' },
  cypher: { script: 'cypher.ts', about: 'Cypher path queries per row against the engine by hand (scan + expandEach)' },
  'cypher-hostile': { script: 'cypher-hostile.ts', about: 'hostile Cypher (issue 15: C2 collect, C3 writes over a cross product) against a real serve process: answer time, peak RSS, slowest /healthz; --root DIR runs another checkout' },
  dispatch: { script: 'dispatch.ts', about: 'POST /dispatch (Cypher) req/s against a hand-written node:http server answering the same bytes; --through-nginx: through nginx against direct' },
  graphql: { script: 'graphql.ts', about: 'GraphQL over HTTP, three shapes, against Mercurius + graphql-jit; APQ; GraphQL vs Cypher in process' },
  auth: { script: 'auth.ts', about: 'POST /dispatch with a verified JWT against AUTH_TYPE=none' },
  access: { script: 'access.ts', about: 'GraphQL read with a verified JWT and a row rule on every row against AUTH_TYPE=none; per-row RLS cost on a 100k-row scan' },
  carrier: { script: 'carrier.ts', about: 'SSE carrier: RSS/heap per subscription and fan-out at 10,000 subscriptions against graphql-yoga SSE' },
  secrets: { script: 'secrets.ts', about: 'secret reads/s with a cached store token against plain fetch; logins under 1,000 concurrent reads' },
  delegation: { script: 'delegation.ts', about: 'downstream calls with a cached delegated token against no delegation; exchanges under 1,000 calls' },
  'tool-search': { script: 'tool-search.ts', about: 'search_tools latency (p50/p99) and tools/list pages with 10,000 operation tools against MiniSearch behind node:http answering the same definitions' },
  tools: { script: 'tools.ts', about: 'tool calls (REST and MCP) with no auth, jwt and cached delegation against POST /dispatch alone' },
  'hot-path': { script: 'hot-path.ts', about: 'ordinary reads (GraphQL byId, filtered20, deep100; /dispatch tour query and point read) against another build: --baseline DIR, alternating rounds, this checkout / baseline' },
  'hot-path-instructions': { script: 'hot-path-instructions.ts', about: 'the hot-path requests against another build (--baseline DIR), counted in instructions per request under valgrind callgrind instead of timed: repeatable on a noisy machine' },
  pipelining: { script: 'pipelining.ts', about: 'the schema client\'s fragment fast path: the hand-written HTTP/1.1 pipelining client against undici Pool({ pipelining }), 4096 fragments from a real catalogue server' },
  metrics: { script: 'metrics.ts', about: 'POST /dispatch and /graphql with Prometheus metrics on against a baseline without them (--baseline-root DIR: a checkout without the hooks)' },
  tracing: { script: 'tracing.ts', about: 'dispatch, GraphQL and tool calls with tracing off and on (every span exported over OTLP/HTTP) against the code before tracing' },
  'bounded-maps': { script: 'bounded-maps.ts', about: 'the hand-written bounded maps left on hot paths (Cypher statements, GraphQL documents) against lru-cache doing the same job' },
  cli: { script: 'cli.ts', about: 'toolgraph --version, --help, graph list, cypher and npm start (time to listen) on the built dist/, against node -e 0' },
};

function list(): string {
  const width = Math.max(...Object.keys(SUITES).map((name) => name.length));
  const rows = Object.entries(SUITES).map(([name, suite]) => `  ${name.padEnd(width)}  ${suite.about}`);
  return `usage: npm run bench -- <suite ...|all> [--out DIR] [--option value ...]  (options go to each suite: see its header)\n\nsuites:\n${rows.join('\n')}\n`;
}

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = outIndex >= 0 ? args[outIndex + 1] : undefined;
if (outIndex >= 0 && !outDir) {
  process.stderr.write('--out needs a directory\n');
  process.exit(2);
}
// Suite names come first; from the first option on, everything but --out DIR is the suites' own.
const firstOption = args.findIndex((arg) => arg.startsWith('--'));
const names = firstOption < 0 ? args : args.slice(0, firstOption);
const passThrough = args.filter((_arg, i) => firstOption >= 0 && i >= firstOption && (outIndex < 0 || (i !== outIndex && i !== outIndex + 1)));
if (names.length === 0) {
  process.stdout.write(list());
  process.exit(0);
}
const chosen = names.includes('all') ? Object.keys(SUITES) : names;
for (const name of chosen) {
  if (!Object.hasOwn(SUITES, name)) {
    process.stderr.write(`unknown bench suite ${JSON.stringify(name)}\n\n${list()}`);
    process.exit(2);
  }
}
if (outDir) mkdirSync(outDir, { recursive: true });

let failed = false;
for (const name of chosen) {
  const { script } = SUITES[name]!;
  process.stdout.write(`\n== ${name}: ${script} ==\n`);
  const scriptArgs = [join(import.meta.dirname, script)];
  if (outDir) scriptArgs.push('--out', join(outDir, `${name}.json`));
  scriptArgs.push(...passThrough);
  const result = spawnSync(process.execPath, scriptArgs, { stdio: 'inherit' });
  if (result.status !== 0) {
    failed = true;
    process.stderr.write(`${script} exited with ${result.status ?? result.signal}\n`);
  }
}
process.exit(failed ? 1 : 0);
