/**
 * Issue 28, F1–F3: Cypher reads with ordinary tokens that built lists, sort keys and scans the budget
 * never saw. Each goes through POST /dispatch to the product in a process of its own (the fuzzer's
 * server, the hostile graph of 10,004 nodes), whose heap is capped at 1.5 GiB so that a server that
 * would take the machine's memory dies early instead (F1 took RSS to 4.2 GB and the process down).
 * Each must be refused on a named budget within twice the time budget, with /healthz answering within
 * 500 ms throughout (probed from another thread) and the server's RSS within 512 MiB of its start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cypherBody, post, startFuzzTarget, type FuzzTarget } from './fuzz/fuzz-target.ts';
import { HEALTHZ_BOUND_MS } from './fuzz/run-case.ts';

const TIME_BUDGET_MS = 2000;
const RSS_GROWTH_BOUND = 512 * 1024 * 1024;
let target: FuzzTarget;

beforeAll(async () => {
  target = await startFuzzTarget({ TOOLGRAPH_QUERY_TIMEOUT_MS: String(TIME_BUDGET_MS) }, { execArgv: ['--max-old-space-size=1536'] });
}, 120_000);

afterAll(async () => {
  await target?.close();
});

interface Attack {
  readonly status: number;
  readonly error: { readonly code?: string; readonly message?: string; readonly details?: Record<string, unknown> } | undefined;
  readonly ms: number;
  readonly slowestHealthzMs: number;
  readonly rssGrowth: number;
}

/** Sends the statement, sampling the server's RSS every 20 ms and /healthz from the prober's thread. */
async function attack(query: string, params: Record<string, unknown>): Promise<Attack> {
  const before = target.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, target.rss());
  }, 20);
  target.prober.reset();
  try {
    const answer = await post(target.origin, '/dispatch', cypherBody(query, params), 10 * TIME_BUDGET_MS);
    const body = JSON.parse(answer.body) as { error?: Attack['error'] };
    const outcome = { status: answer.status, error: body.error, ms: answer.ms, slowestHealthzMs: target.prober.slowestMs(), rssGrowth: peak - before };
    // The figures, for the log (the closing note quotes them).
    console.info(`${query.slice(0, 60)}…: ${outcome.status} ${body.error?.code ?? 'answered'} ${String(body.error?.details?.['limit'] ?? '')} in ${Math.round(outcome.ms)} ms; slowest /healthz ${outcome.slowestHealthzMs} ms; RSS +${Math.round(outcome.rssGrowth / 1048576)} MiB`);
    return outcome;
  } finally {
    clearInterval(sampler);
  }
}

function expectContained(outcome: Attack, limits: readonly string[]): void {
  expect(outcome.error?.code, JSON.stringify(outcome.error)).toBe('TG_QUERY_BUDGET_EXCEEDED');
  expect(limits).toContain(outcome.error?.details?.['limit']);
  expect(outcome.error?.message).toContain(String(outcome.error?.details?.['setting']));
  expect(outcome.ms).toBeLessThan(2 * TIME_BUDGET_MS);
  expect(outcome.slowestHealthzMs).toBeLessThan(HEALTHZ_BOUND_MS);
  expect(outcome.rssGrowth, `RSS grew by ${Math.round(outcome.rssGrowth / 1048576)} MiB`).toBeLessThan(RSS_GROWTH_BOUND);
  expect(target.alive()).toBe(true);
}

// Single digits, as in the finding: 450,000 items in a 912 KB body, under the 1 MiB body limit.
const ints = Array.from({ length: 450_000 }, (_, i) => i % 10);
const repeated = (n: number, text: string, join: string): string => Array.from({ length: n }, () => text).join(join);

describe('F1–F3: Cypher values built or scanned without a charge, through POST /dispatch', () => {
  it('F1: a list literal of 1,500 slices of a 450,000-item parameter is refused on the result-size budget before the copies exist', async () => {
    const outcome = await attack(`RETURN size([${repeated(1500, '$l[0..]', ', ')}]) AS n`, { l: ints });
    expectContained(outcome, ['maxResultBytes']);
  }, 60_000);

  it('F2: ORDER BY a slice of a large parameter over a cross product is refused before the sort keys pile up', async () => {
    const outcome = await attack('MATCH (a), (b) RETURN a.id AS x ORDER BY $l[1..]', { l: ints });
    expectContained(outcome, ['maxResultBytes']);
  }, 60_000);

  it('F3: a WHERE of 100 CONTAINS tests of a 600 kB string stops on its time (or stall) budget, with /healthz answering', async () => {
    const query = `MATCH (n) WHERE ${repeated(100, 'NOT ($a CONTAINS $b)', ' AND ')} RETURN count(*) AS c`;
    const outcome = await attack(query, { a: 'a'.repeat(600_000), b: `${'a'.repeat(1000)}b` });
    expectContained(outcome, ['timeoutMs', 'maxStallMs']);
  }, 60_000);

  it('F3: one CONTAINS whose needle defeats the native search (quadratic in V8) is answered at once by a linear search', async () => {
    const needle = `${'a'.repeat(5000)}b${'a'.repeat(5000)}`;
    const answer = await post(target.origin, '/dispatch', cypherBody('RETURN $a CONTAINS $b AS hit, ($a + $b) CONTAINS $b AS late', { a: 'a'.repeat(600_000), b: needle }), 10 * TIME_BUDGET_MS);
    expect(JSON.parse(answer.body)).toMatchObject({ result: { rows: [[false, true]] } });
    expect(answer.ms).toBeLessThan(TIME_BUDGET_MS);
  }, 60_000);

  it('F3: 300 toInteger() of a 600,000-digit string per row stop on the time (or stall) budget, with /healthz answering', async () => {
    const query = `MATCH (n) RETURN count(*) AS c, ${repeated(300, 'toInteger($s)', ' + ')} AS t`;
    const outcome = await attack(query, { s: '7'.repeat(600_000) });
    expectContained(outcome, ['timeoutMs', 'maxStallMs']);
  }, 60_000);

  it('still answers ordinary reads afterwards', async () => {
    const answer = await post(target.origin, '/dispatch', cypherBody('MATCH (h:Hub) RETURN count(*) AS n, size($l[1..3]) AS s, $a CONTAINS \'b\' AS c', { l: [1, 2, 3, 4], a: 'abc' }), 10 * TIME_BUDGET_MS);
    expect(JSON.parse(answer.body)).toMatchObject({ result: { rows: [[3, 2, true]] } });
  });
});
