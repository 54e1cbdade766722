import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMIT_SLICE_MS, GraphEngine } from '../../../src/graph/engine/index.ts';
import { GraphqlPipeline, budgetMeters } from '../../../src/graph/graphql/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { silentLogger } from '../../../src/log/index.ts';
import { LOCAL, graphqlOptions } from './support.ts';

// Issue 15, item 7 (fuzzer finding: `{ Hub { blob b1: blob … b11: blob } }`, a 1 MB property under a
// dozen aliases, stalled /healthz 600-1000 ms while its 12 MB answer was written in one JSON.stringify):
// a large result is written in slices between turns of the event loop, as the same text.
const BLOB = 'b'.repeat(1_000_000);
let engine: GraphEngine;

beforeAll(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({ graph: 'g', mutations: [
    { op: 'createNode', id: 'hub-0', label: 'Hub', props: { name: 'hub "0"', blob: BLOB } },
    { op: 'createNode', id: 'hub-1', label: 'Hub', props: { name: 'hub\n1' } },
  ] });
});

afterAll(async () => {
  await engine.close();
});

describe('a GraphQL result of megabytes', () => {
  it('is serialised over several turns of the event loop, as the text JSON.stringify writes', async () => {
    const pipeline = new GraphqlPipeline({
      engine, logger: silentLogger(), options: graphqlOptions(),
      meter: budgetMeters({ maxRows: 1_000_000, maxResultBytes: 64 * 1024 * 1024, timeoutMs: 60_000, maxStallMs: 60_000 }),
    });
    const aliases = Array.from({ length: 11 }, (_, i) => `b${i + 1}: blob`).join(' ');
    const query = `{ Hub { id name blob ${aliases} } }`;
    // Once to build the schema and prepare the document, then watched.
    await pipeline.run({ graph: 'g', principal: LOCAL, method: 'POST', params: { query } });
    let turns = 0;
    let running = true;
    const spin = (): void => {
      if (!running) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    // Slices are COMMIT_SLICE_MS of the clock, and a quiet machine writes these 12 MB within about
    // two: the watched run reads a clock that moves a whole slice per reading, so every point where
    // the writer may pause is a pause, whatever the machine's speed.
    let clock = performance.now();
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (clock += COMMIT_SLICE_MS));
    let body: string;
    try {
      body = (await pipeline.run({ graph: 'g', principal: LOCAL, method: 'POST', params: { query } })).body;
    } finally {
      running = false;
      now.mockRestore();
    }
    expect(turns).toBeGreaterThan(2);
    const hub = (blob: string | null, id: string, name: string): Record<string, unknown> =>
      ({ id, name, blob, ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`b${i + 1}`, blob])) });
    const expected = { data: { Hub: [hub(BLOB, 'hub-0', 'hub "0"'), hub(null, 'hub-1', 'hub\n1')] } };
    // The response's extensions (the graph version) as they came; the rest must be the same text.
    const want = JSON.stringify({ ...expected, extensions: (JSON.parse(body) as { extensions: unknown }).extensions });
    expect(body === want).toBe(true);
  });
});
