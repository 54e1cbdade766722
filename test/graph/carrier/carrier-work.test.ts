import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/graph/budget/index.ts';
import type { MutationInput } from '../../../src/graph/engine/index.ts';
import { OverloadSignal } from '../../../src/overload/index.ts';
import { captureLogger } from '../../support/capture-logger.ts';
import type { SseClient } from '../../support/sse-client.ts';
import { GRAPH, startFixture, type CarrierFixture } from './carrier-fixture.ts';

/**
 * Issue 28, F7, through the real carrier: a commit re-runs only the subscriptions whose last
 * evaluation read something it changed (and still delivers every frame it changes), evaluations run
 * under the queries' execution budget, and new subscriptions are refused past the carrier's work
 * limit. The executor is the product's, counted.
 */

let fixture: CarrierFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Long enough for a queued evaluation to have run and its frame to have arrived. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 150));

const last = (client: SseClient): unknown => client.frames().at(-1);

async function open(f: CarrierFixture, query: string, overrides: Parameters<CarrierFixture['sign']>[0] = {}): Promise<SseClient> {
  const client = await f.subscribe(await f.sign({ query, ...overrides }));
  expect(client.status).toBe(200);
  await client.until((c) => c.events.length === 1, 'the initial frame');
  return client;
}

describe('the carrier re-runs only what a commit touched', () => {
  it('skips batches that change nothing an evaluation read, and delivers a frame for each that changes what it shows', async () => {
    fixture = await startFixture();
    const f = fixture;
    // kg:admin reads the graph whole (no row rules): what it reads is exactly the rows it produced.
    const client = await open(f, 'subscription { Person(first: 3) { id name KNOWS(first: 1) { id } } }', { scopes: ['kg:admin'] });
    expect(last(client)).toEqual({ data: { Person: [
      { id: 'p01', name: 'Person 1', KNOWS: [{ id: 'p02' }] }, { id: 'p02', name: 'Person 2', KNOWS: [{ id: 'p03' }] }, { id: 'p03', name: 'Person 3', KNOWS: [{ id: 'p04' }] },
    ] } });
    const runs = f.executor.runs;

    const untouched: MutationInput[][] = [
      [{ op: 'updateNode', id: 'p09', set: { name: 'Nine' } }],
      [{ op: 'createNode', id: 'd3', label: 'Doc', props: { title: 'three', team: 'red' } }],
      [{ op: 'addEdge', src: 'p08', tgt: 'p10', type: 'KNOWS' }],
      [{ op: 'updateNode', id: 'd1', set: { title: 'uno' } }],
      [{ op: 'deleteNode', id: 'p10' }],
    ];
    for (const batch of untouched) {
      await f.commit(...batch);
      await settle();
      expect(f.executor.runs, JSON.stringify(batch)).toBe(runs);
    }
    expect(client.events).toHaveLength(1);

    const touching: [MutationInput, (frame: unknown) => void][] = [
      [{ op: 'updateNode', id: 'p02', set: { name: 'Bea' } }, (frame) => expect(frame).toMatchObject({ data: { Person: [{ id: 'p01' }, { id: 'p02', name: 'Bea' }, { id: 'p03' }] } })],
      [{ op: 'removeEdge', src: 'p03', tgt: 'p04', type: 'KNOWS' }, (frame) => expect(frame).toMatchObject({ data: { Person: [{}, {}, { id: 'p03', KNOWS: [] }] } })],
      [{ op: 'createNode', id: 'p00', label: 'Person', props: { name: 'Zero', team: 'red' } }, (frame) => expect(frame).toMatchObject({ data: { Person: [{ id: 'p00', KNOWS: [] }, { id: 'p01' }, { id: 'p02' }] } })],
      [{ op: 'deleteNode', id: 'p01' }, (frame) => expect(frame).toMatchObject({ data: { Person: [{ id: 'p00' }, { id: 'p02' }, { id: 'p03' }] } })],
    ];
    let frames = 1;
    let expectedRuns = runs;
    for (const [mutation, check] of touching) {
      await f.commit(mutation);
      expectedRuns++;
      frames++;
      await client.until((c) => c.events.length === frames, `the frame of ${JSON.stringify(mutation)}`);
      check(last(client));
      expect(f.executor.runs).toBe(expectedRuns);
    }
    expect(last(client)).toEqual({ data: { Person: [
      { id: 'p00', name: 'Zero', KNOWS: [] }, { id: 'p02', name: 'Bea', KNOWS: [{ id: 'p03' }] }, { id: 'p03', name: 'Person 3', KNOWS: [] },
    ] } });
    // An edge at a node it produced re-runs it, though the cut list it shows is the same: no frame.
    await f.commit({ op: 'addEdge', src: 'p02', tgt: 'p09', type: 'KNOWS' });
    await expect.poll(() => f.executor.runs).toBe(expectedRuns + 1);
    await settle();
    expect(client.events).toHaveLength(frames);
  });

  it('re-runs a root list filtered by a property when a node it did not produce comes to match', async () => {
    fixture = await startFixture();
    const f = fixture;
    const client = await open(f, 'subscription { Person(team: "blue", first: 5) { id } }', { scopes: ['kg:admin'] });
    expect(last(client)).toEqual({ data: { Person: [{ id: 'p07' }, { id: 'p08' }] } });
    await f.commit({ op: 'updateNode', id: 'p09', set: { team: 'blue' } });
    await client.until((c) => c.events.length === 2, 'the frame of the newly matching row');
    expect(last(client)).toEqual({ data: { Person: [{ id: 'p07' }, { id: 'p08' }, { id: 'p09' }] } });
  });

  it('under row rules, re-runs when an update shows a hidden row at the root or at the end of a visible edge, and only the subscription it concerns', async () => {
    fixture = await startFixture();
    const f = fixture;
    // The red team sees d1, not d2; p06 KNOWS p07, whom it does not see.
    const docs = await open(f, 'subscription { Doc(first: 5) { id title } }');
    const people = await open(f, 'subscription { Person(id: "p06", first: 1) { id KNOWS { id } } }');
    expect(last(docs)).toEqual({ data: { Doc: [{ id: 'd1', title: 'one' }] } });
    expect(last(people)).toEqual({ data: { Person: [{ id: 'p06', KNOWS: [] }] } });
    const runs = f.executor.runs;

    await f.commit({ op: 'updateNode', id: 'd2', set: { team: 'red' } });
    await docs.until((c) => c.events.length === 2, 'the frame of the doc now shown');
    expect(last(docs)).toEqual({ data: { Doc: [{ id: 'd1', title: 'one' }, { id: 'd2', title: 'two' }] } });
    await settle();
    expect(f.executor.runs).toBe(runs + 1);

    await f.commit({ op: 'updateNode', id: 'p07', set: { team: 'red' } });
    await people.until((c) => c.events.length === 2, 'the frame of the neighbour now shown');
    expect(last(people)).toEqual({ data: { Person: [{ id: 'p06', KNOWS: [{ id: 'p07' }] }] } });
    await settle();
    expect(f.executor.runs).toBe(runs + 2);
    expect(docs.events).toHaveLength(2);
  });
});

describe('the carrier\'s evaluations run under the execution budget', () => {
  it('ends a stream whose re-evaluation is over its budget with over-budget, naming the limit and its setting; the others go on', async () => {
    const { lines, logger } = captureLogger('info');
    fixture = await startFixture({ budget: { ...DEFAULT_BUDGET_LIMITS, maxRows: 5 }, logger });
    const f = fixture;
    const docs = await open(f, 'subscription { Doc(first: 10) { id } }');
    const people = await open(f, 'subscription { Person(first: 2) { id name } }');

    await f.commit(...Array.from({ length: 6 }, (_v, i) => ({ op: 'createNode' as const, id: `d${i + 3}`, label: 'Doc', props: { title: `doc ${i}`, team: 'red' } })));
    await docs.until((c) => c.finished, 'the end of the over-budget stream');
    const complete = docs.events.at(-1)!;
    expect(complete.event).toBe('complete');
    expect(JSON.parse(complete.data)).toEqual({
      reason: 'over-budget',
      error: {
        code: 'TG_QUERY_BUDGET_EXCEEDED',
        message: 'The query was stopped after producing more than 5 rows, its row budget (TOOLGRAPH_QUERY_MAX_ROWS). Narrow the query (a more selective pattern, WHERE or LIMIT) or raise the budget.',
      },
    });
    expect(lines.some((l) => l.includes('carrier subscription over its execution budget') && l.includes('"limit":"maxRows"') && !l.includes(GRAPH))).toBe(true);

    // The other subscription was not touched and still streams.
    expect(people.finished).toBe(false);
    await f.commit({ op: 'updateNode', id: 'p01', set: { name: 'Ada' } });
    await people.until((c) => c.events.length === 2, 'the frame after the other stream ended');
    expect(last(people)).toEqual({ data: { Person: [{ id: 'p01', name: 'Ada' }, { id: 'p02', name: 'Person 2' }] } });

    // A new subscription of the same text is refused before its stream starts.
    const again = await f.subscribe(await f.sign({ query: 'subscription { Doc(first: 10) { id } }' }));
    expect(again.status).toBe(400);
    expect(JSON.parse(again.body)).toMatchObject({ error: { code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxRows', max: 5, setting: 'TOOLGRAPH_QUERY_MAX_ROWS' } } });
  });

  it('keeps the streams of an evaluation the overload stopped, and evaluates it again once the overload is over', async () => {
    const overload = new OverloadSignal();
    fixture = await startFixture({ budgetOptions: { overload } });
    const f = fixture;
    // Enough work (rows and bytes) that the budget reads its clock, and with it the overload signal.
    await f.commit(...Array.from({ length: 100 }, (_v, i) => ({ op: 'createNode' as const, id: `b${String(i).padStart(3, '0')}`, label: 'Blob', props: { body: 'x'.repeat(200) } })));
    const client = await open(f, 'subscription { Blob(first: 100) { id body } }');
    const runs = f.executor.runs;

    overload.enter({ reason: 'heap', reading: 95, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' });
    await f.commit({ op: 'updateNode', id: 'b000', set: { body: 'changed' } });
    await expect.poll(() => f.executor.runs).toBe(runs + 1);
    await settle();
    expect(client.finished).toBe(false);
    expect(client.events).toHaveLength(1);

    overload.leave();
    await client.until((c) => c.events.length === 2, 'the frame once the overload is over', 5_000);
    expect((last(client) as { data: { Blob: unknown[] } }).data.Blob[0]).toEqual({ id: 'b000', body: 'changed' });
    expect(f.executor.runs).toBe(runs + 2);
  });
});

describe('the carrier\'s work limit', () => {
  it('refuses a new subscription past TOOLGRAPH_CARRIER_MAX_WORK with 503, lets one of a running text join, and frees the work when a group ends', async () => {
    fixture = await startFixture({ maxWork: 50 });
    const f = fixture;
    // Each is priced 21 (1 + 10 × 2 values).
    const first = await open(f, 'subscription { Person(first: 10) { id name } }');
    const second = await open(f, 'subscription { Person(first: 10) { name id } }');
    expect(f.carrier.stats().work).toBe(42);

    const refused = await f.subscribe(await f.sign({ query: 'subscription { Doc(first: 10) { id title } }' }));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toEqual({
      error: {
        code: 'TG_CARRIER_WORK_LIMIT',
        message: 'This subscription\'s complexity of 21 result values does not fit beside the running subscriptions in the carrier\'s work limit of 50 result values per commit (TOOLGRAPH_CARRIER_MAX_WORK); running subscriptions go on. Retry later, subscribe to less, use the text of a running subscription (subscribers of one text share its work), or raise the limit.',
        details: { limit: 'maxWork', max: 50, setting: 'TOOLGRAPH_CARRIER_MAX_WORK', complexity: 21 },
      },
    });

    // Subscribers of one text (and visibility) share one evaluation: joining costs nothing.
    const joined = await open(f, 'subscription { Person(first: 10) { id name } }');
    expect(f.carrier.stats()).toMatchObject({ work: 42, groups: 2, sessions: 3 });
    await f.commit({ op: 'updateNode', id: 'p01', set: { name: 'Ada' } });
    for (const client of [first, second, joined]) await client.until((c) => c.events.length === 2, 'the frame of the running streams');

    second.close();
    await expect.poll(() => f.carrier.stats().work).toBe(21);
    await open(f, 'subscription { Doc(first: 10) { id title } }');
    expect(f.carrier.stats().work).toBe(42);
  });
});
