import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { DEFAULT_SCHEMA_CAPS } from '../../src/graph/engine/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';

/**
 * Issue 15, H1 (schema bloat), through the real HTTP surface. Before the caps one GraphQL createNode
 * with 20,000 new properties, or Cypher CREATEs of thousands of new labels, each rebuilt the whole
 * schema on the event loop: /healthz went silent for tens of seconds, RSS grew by gigabytes, and
 * every restart paid it again. Now such writes are refused naming the cap, a schema change at the
 * caps keeps the server answering, and a restart over a graph at the caps is quick.
 * (The 50 ms stall target itself is checked by `npm run bench -- schema`: too noisy for a test.)
 */

const home = mkdtempSync(join(tmpdir(), 'tg-h1-'));
const dataDir = join(home, 'data');
// The write caps are raised out of the way: with the defaults, a 20,000-property createNode is already
// refused for its 20,001 changes (TG_WRITE_TOO_LARGE, TOOLGRAPH_WRITE_MAX_CHANGES); here the schema caps alone must hold.
const config = () => resolveConfig({ env: { HOME: home, PORT: '0', TOOLGRAPH_PERSISTENCE: 'file', TOOLGRAPH_DATA_DIR: dataDir, LOG_LEVEL: 'silent', TOOLGRAPH_WRITE_MAX_CHANGES: '1000000' } });

let running: RunningToolgraph | undefined;
afterAll(async () => {
  await running?.close({ graceMs: 0 });
  rmSync(home, { recursive: true, force: true });
});

interface GraphqlBody { data?: unknown; errors?: { message: string; extensions?: { code?: string; details?: Record<string, unknown> } }[]; extensions?: { version?: number } }
interface DispatchBody { result?: { rows: unknown[][]; version: number }; error?: { code: string; message: string; details?: Record<string, unknown> } }

async function graphql(query: string, variables?: unknown): Promise<GraphqlBody> {
  const response = await fetch(`${running!.origin}/graphql/demo`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  });
  return (await response.json()) as GraphqlBody;
}

async function cypher(query: string): Promise<DispatchBody> {
  const response = await fetch(`${running!.origin}/dispatch`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query } } }),
  });
  return (await response.json()) as DispatchBody;
}

async function version(): Promise<number> {
  return (await graphql('{ __typename }')).extensions!.version!;
}

interface Probe {
  /** The slowest /healthz answer, wall clock (on a shared machine it counts other processes' turns too). */
  readonly slowestHealthz: number;
  /** The most CPU this process's main thread (the server's event loop) used while one /healthz waited. */
  readonly longestBusy: number;
  /** monitorEventLoopDelay's longest delay (wall clock, like slowestHealthz), for the failure message. */
  readonly longestDelay: number;
}

/** Probes /healthz back to back while `work` runs (the server runs in this process: its event loop is ours). */
async function whileProbing(work: () => Promise<void>): Promise<Probe> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let probing = true;
  let slowest = 0;
  let busiest = 0;
  const probe = (async () => {
    while (probing) {
      const started = performance.now();
      const cpu = process.threadCpuUsage();
      const response = await fetch(`${running!.origin}/healthz`);
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      const used = process.threadCpuUsage(cpu);
      const wall = performance.now() - started;
      slowest = Math.max(slowest, wall);
      busiest = Math.max(busiest, Math.min(wall, (used.user + used.system) / 1000));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work();
  } finally {
    probing = false;
    await probe;
    delay.disable();
  }
  return { slowestHealthz: slowest, longestBusy: busiest, longestDelay: delay.max / 1e6 };
}

const props = (count: number, prefix = 'p') => Array.from({ length: count }, (_, i) => `${prefix}${i}: ${i}`).join(', ');

describe('H1: schema bloat', () => {
  beforeAll(async () => {
    running = await startToolgraph({ config: config(), logger: silentLogger(), only: ['graph', 'catalogue'] });
    await running.settled();
  });

  it('refuses a GraphQL createNode with 20,000 new properties, naming the cap; nothing changes', async () => {
    const before = await version();
    const many: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) many[`p${String(i).padStart(5, '0')}`] = i;
    const body = await graphql('mutation($p: JSON!) { createNode(label: "Bloat", props: $p) { id } }', { p: many });
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions).toMatchObject({
      code: 'TG_SCHEMA_CAP_EXCEEDED',
      details: { limit: 'maxPropertiesPerLabel', max: 1000, found: 20_000, setting: 'TOOLGRAPH_GRAPH_MAX_PROPERTIES_PER_LABEL' },
    });
    expect(body.errors![0]!.message).toContain('TOOLGRAPH_GRAPH_MAX_PROPERTIES_PER_LABEL');
    expect(await version()).toBe(before);
    expect((await graphql('{ Bloat { id } }')).errors![0]!.extensions!.code).toBe('TG_GRAPHQL_NO_NODE_TYPE');
  });

  it('refuses a Cypher CREATE of 2,900 new labels, naming the cap; nothing changes', async () => {
    const before = await version();
    const labels = Array.from({ length: 2_900 }, (_, i) => `(:L${i})`).join(',');
    const answer = await cypher(`CREATE ${labels}`);
    expect(answer.error).toMatchObject({
      code: 'TG_SCHEMA_CAP_EXCEEDED',
      details: { limit: 'maxLabels', max: 1000, setting: 'TOOLGRAPH_GRAPH_MAX_LABELS' },
    });
    expect(answer.error!.details!['found']).toBeGreaterThan(2_900);
    expect(await version()).toBe(before);
  });

  it('at the caps, a schema change keeps /healthz answering, and a restart over that graph is quick', async () => {
    const { maxLabels, maxPropertiesPerLabel, maxSchemaFields } = DEFAULT_SCHEMA_CAPS;
    // Fill demo up to the caps: every label, one label with every property it may have, edges
    // pairing labels up, and the schema fields all but a few.
    const engine = running!.engine!;
    const size = () => {
      const { labels, edgeTypes } = engine.view('demo').catalogue;
      return { labels: labels.length, fields: labels.reduce((n, l) => n + Object.keys(l.properties).length, 0) + edgeTypes.reduce((n, t) => n + t.pairs.length, 0) };
    };
    const fresh = maxLabels - size().labels - 1;
    expect((await cypher(`CREATE (:Wide {${props(maxPropertiesPerLabel)}})`)).error).toBeUndefined();
    const perLabel = Math.floor((maxSchemaFields - size().fields - 600 - 10) / fresh);
    for (let first = 1; first <= fresh; first += 50) {
      const nodes = Array.from({ length: Math.min(50, fresh - first + 1) }, (_, i) => `(:C${first + i} {id: 'c${first + i}', ${props(perLabel)}})`);
      expect((await cypher(`CREATE ${nodes.join(', ')}`)).error).toBeUndefined();
    }
    for (let e = 0; e < 300; e += 50) {
      const ends = Array.from({ length: 50 }, (_, i) => 1 + 2 * (e + i));
      const match = ends.flatMap((a) => [`(c${a}:C${a} {id: 'c${a}'})`, `(c${a + 1}:C${a + 1} {id: 'c${a + 1}'})`]).join(', ');
      const create = ends.map((a) => `(c${a})-[:PAIR${a}]->(c${a + 1}), (c${a + 1})-[:PAIR${a}]->(c${a})`).join(', ');
      expect((await cypher(`MATCH ${match} CREATE ${create}`)).error).toBeUndefined();
    }
    expect((await cypher('CREATE (:OneLabelTooMany)')).error).toMatchObject({ code: 'TG_SCHEMA_CAP_EXCEEDED', details: { limit: 'maxLabels' } });
    expect(size().labels).toBe(maxLabels);
    expect(size().fields).toBeGreaterThan(maxSchemaFields * 0.95);
    expect((await graphql('{ C1(first: 1) { id p0 } }')).errors).toBeUndefined();
    await running!.settled();

    // One schema change at the caps: the write, the next GraphQL requests (which build the new
    // schema) and the catalogue's rebuild of the manifests, all while /healthz is probed.
    const change = await whileProbing(async () => {
      expect((await cypher('CREATE (:C7 {added: true})')).error).toBeUndefined();
      const next = await graphql('{ C7(added: true) { id added } }');
      expect(next.errors).toBeUndefined();
      expect(next.data).toEqual({ C7: [{ id: expect.any(String), added: true }] });
      await running!.settled();
    });
    // The event loop never stays busy for long (npm run bench -- schema holds it to 50 ms); /healthz
    // always answers (before the caps it was silent for 10 to 60 s). The wall-clock bound is looser
    // only because the machines tests run on are shared: a probe also waits for other processes.
    expect(change.longestBusy).toBeLessThan(500);
    expect(change.slowestHealthz).toBeLessThan(2_000);

    await running!.close({ graceMs: 0 });
    running = undefined;
    const started = performance.now();
    running = await startToolgraph({ config: config(), logger: silentLogger(), only: ['graph', 'catalogue'] });
    const startMs = performance.now() - started;
    // Before: 61 s at this size (recovery plus every manifest built during start-up).
    expect(startMs).toBeLessThan(10_000);
    const afterRestart = await whileProbing(async () => {
      expect((await graphql('{ C7(added: true) { added } }')).data).toEqual({ C7: [{ added: true }] });
      await running!.settled();
    });
    expect(afterRestart.longestBusy).toBeLessThan(500);
    expect(afterRestart.slowestHealthz).toBeLessThan(2_000);
  }, 600_000);
});
