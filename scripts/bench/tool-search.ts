// Tool search at catalogue scale: node scripts/bench/tool-search.ts [--tools N] [--rounds R] [--calls C]
// A `toolgraph serve` whose trusted documents are N (default 10,000) generated GraphQL queries of the
// demo graph, each named by a unique verb + subject + qualifier (`FindOverdueInvoicesByRegion`), so
// each is an operation tool. Measures: start-up (building and publishing N operation tools), the
// `tools/list` pages (count, bytes, time to read them all with the SDK client), `search_tools` latency
// over REST (p50/p99 per round of C sequential calls), and whether the right tool comes first for
// 300 sampled queries (the name's words). The peer does the same search work without toolgraph: a
// node:http server whose MiniSearch indexes the same names, descriptions and property names with the
// same options and answers the same five tool definitions, serialised ahead of time. Sides alternate
// for R rounds (default 5); min and median of each side's p50 and p99 and of the ratios.
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import MiniSearch from 'minisearch';
import { resolveConfig } from '../../src/config/index.ts';
import { CATALOGUE_SEARCH_OPTIONS, type SearchDocument } from '../../src/manifest/catalogue-search.ts';
import { sha256Hex } from '../../src/digest/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph } from '../../src/serve/index.ts';
import { arg } from './bench-args.ts';
import { fmt, median, printTable } from './bench-stats.ts';

const TOOLS = Number(arg('--tools') ?? 10_000);
const ROUNDS = Number(arg('--rounds') ?? 5);
const CALLS = Number(arg('--calls') ?? 300);
const SAMPLED = 300;

const VERBS = ['Find', 'List', 'Count', 'Rank', 'Audit', 'Export', 'Summarize', 'Track', 'Compare', 'Review', 'Flag', 'Forecast', 'Archive', 'Approve', 'Match', 'Score', 'Group', 'Trace', 'Measure', 'Notify'];
const SUBJECTS = ['Invoices', 'Customers', 'Orders', 'Shipments', 'Tickets', 'Contracts', 'Payments', 'Suppliers', 'Employees', 'Projects', 'Repositories', 'Documents', 'Topics', 'Meetings', 'Budgets', 'Incidents', 'Deployments', 'Licenses', 'Campaigns', 'Leads', 'Refunds', 'Warehouses', 'Vehicles', 'Patients', 'Courses'];
const QUALIFIERS = ['ByRegion', 'Overdue', 'ThisWeek', 'ByOwner', 'Unpaid', 'AtRisk', 'ByCountry', 'Pending', 'Escalated', 'ByPriority', 'Recent', 'Duplicated', 'ByCategory', 'Expired', 'Active', 'ByTeam', 'Flagged', 'Archived', 'ByVendor', 'Delayed'];
const ROOTS = ['Person', 'Organization', 'Document', 'Project', 'Repository', 'Topic'];

interface Operation {
  readonly name: string;
  readonly words: string;
  readonly text: string;
}

function operations(count: number): Operation[] {
  const all: Operation[] = [];
  for (const verb of VERBS) for (const subject of SUBJECTS) for (const qualifier of QUALIFIERS) {
    if (all.length >= count) return all;
    const name = `${verb}${subject}${qualifier}`;
    const root = ROOTS[all.length % ROOTS.length] as string;
    const words = `${verb} ${subject} ${qualifier.replace(/^By/, 'by ')}`.toLowerCase();
    all.push({ name, words, text: `query ${name}($first: Int) { ${root}(first: $first) { id } }` });
  }
  if (all.length < count) throw new Error(`at most ${all.length} names; ask for fewer --tools`);
  return all;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

function post(agent: http.Agent, url: URL, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Listed {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** The peer: MiniSearch over the same text with the catalogue's own options, answering pre-serialised definitions. */
async function startPeer(tools: readonly Listed[]): Promise<{ origin: string; close: () => void }> {
  const index = new MiniSearch<SearchDocument>(CATALOGUE_SEARCH_OPTIONS);
  const answers = new Map<string, string>();
  for (const tool of tools) {
    const digest = String(tool._meta?.['io.toolgraph/schema_sha256']);
    answers.set(tool.name, JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, schema_sha256: digest, manifest_uri: tool._meta?.['io.toolgraph/manifest_uri'] }));
    index.add({ id: tool.name, operation: tool.name.replace(/^persisted-/, ''), alias: tool.name, description: tool.description, fields: 'first data' });
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { arguments: { query, limit } } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { arguments: { query: string; limit: number } };
      const hits = index.search(query).slice(0, limit);
      const body = `{"tools":[${hits.map((h) => (answers.get(String(h.id)) as string).replace(/}$/, `,"score":${h.score}}`)).join(',')}]}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}

async function latencies(agent: http.Agent, url: URL, queries: readonly string[]): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const body = JSON.stringify({ name: 'search_tools', arguments: { query: queries[i % queries.length], limit: 5 } });
    const started = performance.now();
    await post(agent, url, body);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

const ops = operations(TOOLS);
const dir = mkdtempSync(join(tmpdir(), 'tg-bench-search-'));
const file = join(dir, 'persisted-documents.json');
writeFileSync(file, JSON.stringify(Object.fromEntries(ops.map((o) => [sha256Hex(o.text), o.text]))));

const started = performance.now();
const running = await startToolgraph({
  config: resolveConfig({ env: { HOME: dir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL: 'silent', TOOLGRAPH_GRAPHQL_PERSISTED_DOCUMENTS: file } }),
  logger: silentLogger(),
});
await running.settled();
const startMs = performance.now() - started;

// tools/list, every page, with the SDK 1.x client (2025-11-25).
const client = new Client({ name: 'bench', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${running.origin}/mcp`)));
const listed: Listed[] = [];
const pageBytes: number[] = [];
const listStarted = performance.now();
let cursor: string | undefined;
do {
  const page = await client.listTools(cursor === undefined ? {} : { cursor });
  pageBytes.push(Buffer.byteLength(JSON.stringify(page)));
  listed.push(...(page.tools as Listed[]));
  cursor = page.nextCursor;
} while (cursor !== undefined);
const listMs = performance.now() - listStarted;
await client.close();
const operationTools = listed.filter((t) => t.name.startsWith('persisted-'));
if (operationTools.length !== TOOLS) throw new Error(`expected ${TOOLS} operation tools, listed ${operationTools.length}`);

// Does the right tool come first? The query is the words of its name.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const ours = new URL('/mcp/tools/call', running.origin);
let first = 0;
let top5 = 0;
const sample = Array.from({ length: SAMPLED }, (_, i) => ops[Math.floor((i * 7919) % ops.length)] as Operation);
for (const op of sample) {
  const answer = JSON.parse(await post(agent, ours, JSON.stringify({ name: 'search_tools', arguments: { query: op.words, limit: 5 } }))) as { structuredContent: { tools: { name: string }[] } };
  const names = answer.structuredContent.tools.map((t) => t.name);
  const wanted = `persisted-${op.name.toLowerCase()}`;
  if (names[0] === wanted) first++;
  if (names.includes(wanted)) top5++;
}

const peer = await startPeer(operationTools);
const theirs = new URL('/', peer.origin);
const queries = sample.map((o) => o.words);
const rows: { ours: { p50: number; p99: number }; peer: { p50: number; p99: number } }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which side goes first.
  const oursFirst = round % 2 === 0;
  const a = await latencies(agent, oursFirst ? ours : theirs, queries);
  const b = await latencies(agent, oursFirst ? theirs : ours, queries);
  rows.push(oursFirst ? { ours: a, peer: b } : { ours: b, peer: a });
}
peer.close();
agent.destroy();
await running.close({ graceMs: 0 });

const ms = (n: number): string => `${fmt(n, 2)} ms`;
const stat = (values: number[]): string => `${ms(Math.min(...values))} / ${ms(median(values))}`;
const ratio = (values: number[]): string => `${fmt(Math.min(...values), 2)}x / ${fmt(median(values), 2)}x`;
process.stdout.write(`tool search with ${fmt(TOOLS)} operation tools (trusted GraphQL documents), ${ROUNDS} alternating rounds of ${CALLS} sequential REST calls per side\n`);
printTable([
  ['measure', 'value'],
  ['start-up (build + publish + list them)', ms(startMs)],
  ['tools/list pages (SDK 1.x client)', `${pageBytes.length} pages, ${fmt(pageBytes.reduce((a, b) => a + b, 0) / 1024, 0)} KiB in all, largest ${fmt(Math.max(...pageBytes) / 1024, 0)} KiB, ${ms(listMs)} to read them all`],
  [`right tool first (top 5) of ${SAMPLED} queries`, `${first} (${top5})`],
]);
printTable([
  ['search_tools over REST', 'min / median'],
  ['toolgraph p50', stat(rows.map((r) => r.ours.p50))],
  ['peer (MiniSearch + node:http) p50', stat(rows.map((r) => r.peer.p50))],
  ['ratio p50', ratio(rows.map((r) => r.ours.p50 / r.peer.p50))],
  ['toolgraph p99', stat(rows.map((r) => r.ours.p99))],
  ['peer p99', stat(rows.map((r) => r.peer.p99))],
  ['ratio p99', ratio(rows.map((r) => r.ours.p99 / r.peer.p99))],
]);
