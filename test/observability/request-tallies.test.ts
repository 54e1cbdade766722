import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CountedHistogram, type TallyCell } from '../../src/observability/metrics/request-tallies.ts';

const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COUNTER = { name: 'demo_requests_total', help: 'Requests by surface and outcome\nsecond line with a \\ backslash' };
const HISTOGRAM = { name: 'demo_request_duration_seconds', help: 'Request time' };

/** What prom-client writes for the same observations, through its own Counter and Histogram. */
async function promClientText(observations: readonly (readonly [string, string, number])[]): Promise<string> {
  const registry = new Registry();
  const counter = new Counter({ ...COUNTER, labelNames: ['surface', 'outcome'], registers: [registry] });
  const histogram = new Histogram({ ...HISTOGRAM, labelNames: ['surface', 'outcome'], buckets: BOUNDS, registers: [registry] });
  for (const [surface, outcome, seconds] of observations) {
    counter.labels(surface, outcome).inc();
    histogram.labels(surface, outcome).observe(seconds);
  }
  return (await registry.metrics()).trimEnd();
}

function talliedText(observations: readonly (readonly [string, string, number])[]): string {
  const tallies = new CountedHistogram(COUNTER, HISTOGRAM, BOUNDS);
  const cells = new Map<string, TallyCell>();
  for (const [surface, outcome, seconds] of observations) {
    const key = JSON.stringify([surface, outcome]);
    let cell = cells.get(key);
    if (cell === undefined) cells.set(key, (cell = tallies.cell({ surface, outcome })));
    cell.observe(seconds);
  }
  return tallies.exposition();
}

describe('request tallies', () => {
  it('write what prom-client writes for the same observations (buckets on their bounds included)', async () => {
    const label = fc.oneof(fc.constantFrom('graphql', 'dispatch', 'ok', 'TG_QUERY_BUDGET_EXCEEDED'), fc.string({ maxLength: 6 }));
    const seconds = fc.oneof(fc.constantFrom(0, ...BOUNDS, 11), fc.double({ min: 0, max: 20, noNaN: true }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(label, label, seconds), { maxLength: 60 }), async (observations) => {
        expect(talliedText(observations)).toBe(await promClientText(observations));
      }),
      { numRuns: 200 },
    );
  });

  it('escape label values and help text as the format requires', () => {
    const text = talliedText([['a"b', 'c\\d\ne', 0.002]]);
    expect(text).toContain('demo_requests_total{surface="a\\"b",outcome="c\\\\d\\ne"} 1');
    expect(text).toContain('# HELP demo_requests_total Requests by surface and outcome\\nsecond line with a \\\\ backslash');
    expect(text).toContain('demo_request_duration_seconds_bucket{le="0.001",surface="a\\"b",outcome="c\\\\d\\ne"} 0');
    expect(text).toContain('demo_request_duration_seconds_bucket{le="0.0025",surface="a\\"b",outcome="c\\\\d\\ne"} 1');
  });
});
