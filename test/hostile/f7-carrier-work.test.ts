/**
 * Issue 28, finding F7: subscriptions of distinct texts over hubs of 1,000 leaves each, each under the
 * carrier's complexity limit, made every commit, even one that changed no frame, re-run every one of
 * them in one synchronous turn: 12 s per commit for 100 of them, /healthz as slow, 3.9 GB RSS. The
 * carrier now prices an unpaged edge list at the list limit it can return, runs every evaluation
 * under the query execution budget in slices, re-runs only the subscriptions a commit touched (what
 * each one's evaluation read), and refuses new subscriptions past a cap on the carrier's total work
 * per commit. Served by `toolgraph serve` with the carrier on, in a child process, over real HTTP and
 * SSE with signed envelopes. Each test prints its figures (commit-to-ack, /healthz, RSS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.ts';
import { leafId } from './carrier-work-server.ts';
import { HealthSampler, medianAndMax, startWorkTarget, type WorkTarget } from './carrier-work-target.ts';
import { send } from './hostile-server.ts';

const HUBS = 100;
const LEAVES = 1000;
/** The finding's text: priced at 100 per unpaged list by the old rules (30,101), it reads 100 × 1,000 leaves. */
const ATTACK = (i: number): string => `subscription F${i} { Hub(first: 100) { LINK { id LINK_in(first: 1) { id } } } }`;
/** The same shape with a page on every list: 30,101 values, 20,100 rows an evaluation. */
const PAGED = (i: number): string => `subscription P${i} { Hub(first: 100) { LINK(first: 100) { id LINK_in(first: 1) { id } } } }`;
/** 33 of PAGED fit the default cap of 1,000,000 (993,333); the 34th does not. */
const SUBSCRIPTIONS = 33;
/** The row budget every query and evaluation runs under here: PAGED fits, 300 leaves a hub does not. */
const MAX_ROWS = 25_000;
/** What a commit may take to be acknowledged, and /healthz to answer, while the carrier works. */
const RESPONSIVE_MS = 250;

let target: WorkTarget;
let sampler: HealthSampler;
const streams: SseClient[] = [];

beforeAll(async () => {
  target = await startWorkTarget({ env: { TOOLGRAPH_QUERY_MAX_ROWS: String(MAX_ROWS) }, hubs: HUBS, leavesPerHub: LEAVES });
  sampler = new HealthSampler(target.origin);
}, 120_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await sampler?.stop();
  await target?.close();
});

async function subscribe(query: string): Promise<SseClient> {
  const signed = await target.sign(query);
  const client = await new SseClient(target.carrier, signed.path, signed.headers).opened();
  streams.push(client);
  return client;
}

/** One Cypher write through POST /dispatch; answers its time to the acknowledgement. */
async function commit(statement: string): Promise<number> {
  const answer = await send(target.origin, '/dispatch', { method: 'POST', body: JSON.stringify({ id: 1, graph: 'hubs', method: { Cypher: { query: statement, params: {} } } }) });
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).not.toHaveProperty('error');
  return answer.ms;
}

/** A counter of the server's /metrics (NaN when it has none of that name). */
async function metric(name: string): Promise<number> {
  const answer = await send(target.origin, '/metrics');
  const line = answer.body.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function report(what: string, acks: readonly number[], health: readonly number[]): Promise<void> {
  const rss = await target.rss();
  const ack = medianAndMax(acks);
  const probes = medianAndMax(health);
  console.log(`F7 ${what}: commit-to-ack p50 ${ack.p50.toFixed(0)} ms, max ${ack.max.toFixed(0)} ms; /healthz p50 ${probes.p50} ms, max ${probes.max} ms (${health.length} probes); RSS ${mb(rss.bytes)}, peak ${mb(rss.peakBytes)}`);
}

describe('F7: the carrier\'s work per commit is bounded', () => {
  it('refuses the finding\'s subscription before it runs: an unpaged edge list is priced at the list limit it may return', async () => {
    const attack = await subscribe(ATTACK(0));
    attack.close();
    expect(attack.status).toBe(400);
    expect(JSON.parse(attack.body)).toMatchObject({
      error: { code: 'TG_QUERY_TOO_COMPLEX', message: expect.stringContaining('TOOLGRAPH_GRAPHQL_LIST_LIMIT'), details: { limit: 50_000 } },
    });
  }, 60_000);

  it('refuses a subscription whose first evaluation is over the execution budget, naming the limit and its setting', async () => {
    const over = await subscribe('subscription { Hub(first: 100) { LINK(first: 300) { id } } }');
    over.close();
    expect(over.status).toBe(400);
    expect(JSON.parse(over.body)).toMatchObject({
      error: { code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxRows', max: MAX_ROWS, setting: 'TOOLGRAPH_QUERY_MAX_ROWS' } },
    });
  }, 60_000);

  it('re-runs no subscription for a commit that changes nothing they read: its ack and /healthz stay fast', async () => {
    const clients: SseClient[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) clients.push(await subscribe(PAGED(i)));
    for (const client of clients) await client.until((c) => c.events.length === 1, 'the initial frame', 60_000);
    expect(clients.map((c) => c.status)).toEqual(clients.map(() => 200));
    const evaluations = await metric('toolgraph_carrier_evaluations_total');

    sampler.open();
    const acks: number[] = [];
    for (let i = 0; i < 5; i++) acks.push(await commit('MATCH (n:Note) SET n.i = n.i + 1'));
    // Whatever the commits set off has run by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const health = sampler.close();
    await report('no-op commits', acks, health);

    expect(Math.max(...acks)).toBeLessThan(RESPONSIVE_MS);
    expect(medianAndMax(health).max).toBeLessThan(RESPONSIVE_MS);
    expect(evaluations).toBeGreaterThanOrEqual(SUBSCRIPTIONS);
    expect(await metric('toolgraph_carrier_evaluations_total')).toBe(evaluations);
    expect(clients.map((c) => c.events.length)).toEqual(clients.map(() => 1));
  }, 120_000);

  it('re-runs every subscription a commit touched and delivers each its new frame, while /healthz keeps answering', async () => {
    const clients = streams.slice(-SUBSCRIPTIONS);
    const evaluations = await metric('toolgraph_carrier_evaluations_total');
    sampler.open();
    const started = performance.now();
    // The first leaf of the first hub goes (and its edge with it): every frame changes.
    const ack = await commit(`MATCH (l:Leaf {id: '${leafId(0, 0)}'}) DETACH DELETE l`);
    for (const client of clients) await client.until((c) => c.events.length === 2, 'the frame of the touching commit', 60_000);
    const deliveredMs = performance.now() - started;
    const health = sampler.close();
    await report(`touching commit (all ${clients.length} frames in ${deliveredMs.toFixed(0)} ms)`, [ack], health);

    for (const client of clients) {
      const frame = JSON.parse(client.events[1]!.data) as { data: { Hub: { id: string; LINK: { id: string }[] }[] } };
      expect(frame.data.Hub[0]!.LINK[0]!.id).toBe(leafId(0, 1));
      expect(frame.data.Hub[0]!.LINK).toHaveLength(100);
    }
    expect(ack).toBeLessThan(RESPONSIVE_MS);
    expect(medianAndMax(health).max).toBeLessThan(RESPONSIVE_MS);
    expect(await metric('toolgraph_carrier_evaluations_total')).toBe(evaluations + SUBSCRIPTIONS);
  }, 120_000);

  it('refuses a new subscription past the carrier\'s work cap, naming the limit and its setting; a shared text and the running streams go on', async () => {
    const refused = await subscribe(PAGED(SUBSCRIPTIONS));
    refused.close();
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({
      error: {
        code: 'TG_CARRIER_WORK_LIMIT',
        message: expect.stringContaining('TOOLGRAPH_CARRIER_MAX_WORK'),
        details: { limit: 'maxWork', max: 1_000_000, setting: 'TOOLGRAPH_CARRIER_MAX_WORK', complexity: 30_101 },
      },
    });
    // Joining a running subscription's group adds no work: the same text is served.
    const shared = await subscribe(PAGED(0));
    await shared.until((c) => c.events.length === 1, 'the shared subscription\'s initial frame');
    expect(shared.status).toBe(200);
    const clients = streams.filter((c) => c.status === 200);
    await commit(`MATCH (l:Leaf {id: '${leafId(0, 1)}'}) DETACH DELETE l`);
    for (const client of clients) await client.until((c) => c.frames().length >= 2 && JSON.stringify(c.frames().at(-1)).includes(leafId(0, 2)), 'the frame after the refusal', 60_000);
  }, 120_000);
});
