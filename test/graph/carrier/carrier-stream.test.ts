import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import { CARRIER_POLICY, PEOPLE, TEAM_ROWS, startFixture, type CarrierFixture } from './carrier-fixture.ts';

let fixture: CarrierFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const names = (frame: unknown): string[] => ((frame as { data: { Person: { name: string }[] } }).data.Person).map((p) => p.name);

describe('carrier streams', () => {
  it('serves an EventSource client: initial frame, an update per visible change, complete at the end', async () => {
    fixture = await startFixture({ maxSessionSecs: 2 });
    const f = fixture;
    const signed = await f.sign();
    const source = new EventSource(`${f.carrier.origin}${signed.path}`, {
      fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, ...signed.headers } }),
    });
    const frames: unknown[] = [];
    const completes: unknown[] = [];
    let opened = false;
    source.addEventListener('open', () => {
      opened = true;
    });
    const firstTwo = new Promise<void>((resolve) => {
      source.addEventListener('next', (event) => {
        frames.push(JSON.parse(event.data) as unknown);
        if (frames.length === 1) void f.commit({ op: 'updateNode', id: 'p01', set: { name: 'Ada' } });
        if (frames.length === 2) resolve();
      });
    });
    const completed = new Promise<void>((resolve) => {
      source.addEventListener('complete', (event) => {
        completes.push(JSON.parse(event.data) as unknown);
        source.close();
        resolve();
      });
    });
    await firstTwo;
    expect(opened).toBe(true);
    expect(names(frames[0])).toEqual(['Person 1', 'Person 2', 'Person 3', 'Person 4', 'Person 5', 'Person 6', 'Person 9', 'Person 10']);
    expect(names(frames[1])[0]).toBe('Ada');
    await completed;
    expect(completes).toEqual([{ reason: 'session-expired' }]);
    expect(f.carrier.stats()).toMatchObject({ sessions: 0, groups: 0 });
  });

  it('answers the stream with SSE headers and no CORS headers', async () => {
    fixture = await startFixture();
    const client = await fixture.subscribe(await fixture.sign());
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['cache-control']).toBe('no-store');
    expect(Object.keys(client.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    await client.until((c) => c.events.length === 1, 'the initial frame');
    expect(client.events[0]!.event).toBe('next');
  });

  it('sends a frame only for changes the subscriber can see (exact frame sequence)', async () => {
    fixture = await startFixture();
    const f = fixture;
    const red = await f.subscribe(await f.sign({ groups: ['red'] }));
    // The probe sees every row, so it gets a frame for every change: when it has the frame of a change,
    // that change has been evaluated for every group.
    const probe = await f.subscribe(await f.sign({ subject: 'grace', groups: ['blue', 'red'] }));
    await red.until((c) => c.events.length === 1, 'red initial');
    await probe.until((c) => c.events.length === 1, 'probe initial');
    const step = async (n: number, ...mutations: Parameters<CarrierFixture['commit']>): Promise<void> => {
      await f.commit(...mutations);
      await probe.until((c) => c.events.length === n, `probe frame ${n}`);
    };
    await step(2, { op: 'updateNode', id: 'p07', set: { name: 'hidden edit' } });
    await step(3, { op: 'updateNode', id: 'p02', set: { name: 'Visible edit' } });
    await step(4, { op: 'createNode', id: 'p00', label: 'Person', props: { name: 'hidden new', team: 'blue' } });
    await step(5, { op: 'deleteNode', id: 'p08' });
    // A last visible change: once red has its frame, every earlier frame for red has arrived too.
    await step(6, { op: 'updateNode', id: 'p03', set: { name: 'Sentinel' } });
    await red.until((c) => c.events.length === 3, 'red sentinel frame');
    expect(red.frames().map(names)).toEqual([
      ['Person 1', 'Person 2', 'Person 3', 'Person 4', 'Person 5', 'Person 6', 'Person 9', 'Person 10'],
      ['Person 1', 'Visible edit', 'Person 3', 'Person 4', 'Person 5', 'Person 6', 'Person 9', 'Person 10'],
      ['Person 1', 'Visible edit', 'Sentinel', 'Person 4', 'Person 5', 'Person 6', 'Person 9', 'Person 10'],
    ]);
    expect(red.events.every((e) => e.event === 'next')).toBe(true);
  });

  it('sends frames for edge changes', async () => {
    fixture = await startFixture();
    const f = fixture;
    const query = 'subscription { Person(first: 2) { id KNOWS { id } } }';
    const client = await f.subscribe(await f.sign({ query }));
    await client.until((c) => c.events.length === 1, 'initial');
    await f.commit({ op: 'addEdge', src: 'p01', tgt: 'p05', type: 'KNOWS' });
    await client.until((c) => c.events.length === 2, 'frame after addEdge');
    await f.commit({ op: 'removeEdge', src: 'p01', tgt: 'p02', type: 'KNOWS' });
    await client.until((c) => c.events.length === 3, 'frame after removeEdge');
    expect(client.frames()).toEqual([
      { data: { Person: [{ id: 'p01', KNOWS: [{ id: 'p02' }] }, { id: 'p02', KNOWS: [{ id: 'p03' }] }] } },
      { data: { Person: [{ id: 'p01', KNOWS: [{ id: 'p02' }, { id: 'p05' }] }, { id: 'p02', KNOWS: [{ id: 'p03' }] }] } },
      { data: { Person: [{ id: 'p01', KNOWS: [{ id: 'p05' }] }, { id: 'p02', KNOWS: [{ id: 'p03' }] }] } },
    ]);
  });

  it('evaluates once per change for many subscribers of one query and visibility', async () => {
    fixture = await startFixture();
    const f = fixture;
    const clients = await Promise.all(Array.from({ length: 20 }, async () => f.subscribe(await f.sign({ query: PEOPLE }))));
    await Promise.all(clients.map((c) => c.until((x) => x.events.length === 1, 'initial')));
    expect(f.carrier.stats()).toMatchObject({ sessions: 20, groups: 1 });
    const before = f.executor.runs;
    await f.commit({ op: 'updateNode', id: 'p01', set: { name: 'once' } });
    await Promise.all(clients.map((c) => c.until((x) => x.events.length === 2, 'update')));
    expect(f.executor.runs - before).toBe(1);
  });

  it('ends the stream with a final event when the grant is revoked, on the next change or tick', async () => {
    // The access module's answer changes only with a batch (a policy edit is one), so the change path
    // ends mallory's stream. The port may also change its answer without any batch, which only the
    // keepalive tick can notice: `withdrawn` does that to the module's answers.
    const withdrawn = new Set<string>();
    fixture = await startFixture({
      keepaliveMs: 100,
      access: (real) => ({ visibility: (principal, graph) => (withdrawn.has(principal.subject) ? null : real.visibility(principal, graph)) }),
    });
    const f = fixture;
    const revokedOnChange = await f.subscribe(await f.sign({ subject: 'mallory', groups: ['purple'] }));
    const other = await f.subscribe(await f.sign({ subject: 'ada' }));
    await revokedOnChange.until((c) => c.events.length === 1, 'initial');
    await other.until((c) => c.events.length === 1, 'initial');
    await f.setPolicy({ ...CARRIER_POLICY, read: [{ group: 'red' }, { group: 'blue' }] });
    await f.commit({ op: 'updateNode', id: 'p01', set: { name: 'after revoke' } });
    await revokedOnChange.done;
    expect(revokedOnChange.events.map((e) => e.event)).toEqual(['next', 'complete']);
    expect(JSON.parse(revokedOnChange.events[1]!.data)).toEqual({ reason: 'access-revoked', error: { code: 'TG_ACCESS_DENIED', message: 'The graph ACL no longer allows this subscription.' } });
    await other.until((c) => c.events.length === 2, 'the other subscriber keeps receiving');
    expect(names(other.frames()[1])[0]).toBe('after revoke');

    // No change at all: the keepalive tick re-checks the ACL.
    withdrawn.add('ada');
    await other.done;
    expect(other.events.map((e) => e.event)).toEqual(['next', 'next', 'complete']);
    expect(JSON.parse(other.events[2]!.data)).toEqual({ reason: 'access-revoked', error: { code: 'TG_ACCESS_DENIED', message: 'The graph ACL no longer allows this subscription.' } });
  });

  it('moves a subscriber whose visibility changes to its new group, and sends what it now sees', async () => {
    fixture = await startFixture();
    const f = fixture;
    const client = await f.subscribe(await f.sign({ groups: ['red'] }));
    await client.until((c) => c.events.length === 1, 'initial');
    expect(f.carrier.stats().groups).toBe(1);
    // A policy edit changes no row, but lets ada see every person: a new visibility key.
    await f.setPolicy({ ...CARRIER_POLICY, rows: { ...CARRIER_POLICY.rows, Person: { or: [TEAM_ROWS, { eq: [{ claim: 'sub' }, { value: 'ada' }] }] } } });
    await client.until((c) => c.events.length === 2, 'the frame with the newly visible rows');
    expect(names(client.frames()[1])).toEqual(['Person 1', 'Person 2', 'Person 3', 'Person 4', 'Person 5', 'Person 6', 'Person 7', 'Person 8', 'Person 9', 'Person 10']);
    expect(f.carrier.stats().groups).toBe(1);
  });

  it('ends the stream with TG_FRAME_TOO_LARGE when a result grows past 8 MiB, and starts none that begin past it', async () => {
    fixture = await startFixture();
    const f = fixture;
    const query = 'subscription { Blob(first: 100) { body } }';
    await f.commit(...Array.from({ length: 90 }, (_v, i) => ({ op: 'createNode' as const, id: `b${String(i).padStart(2, '0')}`, label: 'Blob', props: { body: 'small' } })));
    const client = await f.subscribe(await f.sign({ query }));
    await client.until((c) => c.events.length === 1, 'initial');
    await f.commit(...Array.from({ length: 90 }, (_v, i) => ({ op: 'updateNode' as const, id: `b${String(i).padStart(2, '0')}`, set: { body: 'x'.repeat(100_000) } })));
    await client.done;
    expect(client.events.map((e) => e.event)).toEqual(['next', 'complete']);
    expect(JSON.parse(client.events[1]!.data)).toEqual({
      reason: 'frame-too-large',
      error: { code: 'TG_FRAME_TOO_LARGE', message: 'The subscription result serialises to more than 8388608 bytes (8 MiB); select less or lower first/limit.' },
    });
    const late = await f.subscribe(await f.sign({ query }));
    expect(late.status).toBe(200);
    await late.done;
    expect(late.events.map((e) => e.event)).toEqual(['complete']);
    // Just under the cap is fine.
    await f.commit(...Array.from({ length: 90 }, (_v, i) => ({ op: 'updateNode' as const, id: `b${String(i).padStart(2, '0')}`, set: { body: 'x'.repeat(90_000) } })));
    const fits = await f.subscribe(await f.sign({ query }));
    await fits.until((c) => c.events.length === 1, 'a frame of about 8.1 MB');
    expect(Buffer.byteLength(fits.events[0]!.data)).toBeGreaterThan(8_000_000);
  });

  it('answers 500 when the first evaluation fails, and keeps no group for it', async () => {
    fixture = await startFixture();
    const f = fixture;
    f.executor.failWith = new Error('executor fault');
    const client = await f.subscribe(await f.sign());
    expect(client.status).toBe(500);
    expect(JSON.parse(client.body)).toEqual({ error: { code: 'TG_INTERNAL', message: 'Internal server error.' } });
    expect(f.carrier.stats()).toMatchObject({ sessions: 0, groups: 0 });
    f.executor.failWith = undefined;
    const next = await f.subscribe(await f.sign());
    expect(next.status).toBe(200);
  });

  it('sends keepalive comments', async () => {
    fixture = await startFixture({ keepaliveMs: 50 });
    const client = await fixture.subscribe(await fixture.sign());
    await client.until((c) => c.keepalives >= 3, 'three keepalives');
    expect(client.events).toHaveLength(1);
  });

  it('ends every session with a final event when its lifetime is over', async () => {
    fixture = await startFixture({ maxSessionSecs: 1 });
    const started = Date.now();
    const client = await fixture.subscribe(await fixture.sign());
    await client.done;
    const lasted = Date.now() - started;
    expect(client.events.map((e) => e.event)).toEqual(['next', 'complete']);
    expect(JSON.parse(client.events[1]!.data)).toEqual({ reason: 'session-expired' });
    expect(lasted).toBeGreaterThanOrEqual(950);
    expect(fixture.carrier.stats()).toMatchObject({ sessions: 0, connections: 0 });
  });

  it('ends streams of a dropped graph', async () => {
    fixture = await startFixture();
    const client = await fixture.subscribe(await fixture.sign());
    await client.until((c) => c.events.length === 1, 'initial');
    await fixture.engine.dropGraph('zebraGraph42');
    await client.done;
    expect(JSON.parse(client.events.at(-1)!.data)).toMatchObject({ reason: 'graph-dropped', error: { code: 'TG_GRAPH_NOT_FOUND' } });
  });
});
