import fc from 'fast-check';
import type { HostileCase } from './hostile-cases.ts';
import { graphVersion, post, type FuzzTarget } from './fuzz-target.ts';

/** The slowest /healthz answer allowed while a case runs. */
export const HEALTHZ_BOUND_MS = 500;

/** Heap growth after GC allowed over one run of cases from the hostile graph (writes that succeed do grow the graph a little). */
export const HEAP_GROWTH_BOUND = 256 * 1024 * 1024;

/**
 * RSS growth allowed while one case runs, over the RSS at its start: what the machine pays, which the
 * heap bound misses (buffers of request bodies and answers, memory outside the V8 heap).
 */
export const RSS_GROWTH_BOUND = 1024 * 1024 * 1024;

/**
 * Cases in one run from the hostile graph as imported: the short run in `npm test` is one such run,
 * and the long one (`npm run fuzz`) runs batches of as many, each from the graph as imported again,
 * so a batch's seed replays it exactly in the short run.
 */
export const CASES_PER_RUN = 40;

export interface CaseOutcome {
  readonly ms: number;
  readonly status: number;
  /** The error code of a refusal (the first, for GraphQL); undefined when the request was answered. */
  readonly code: string | undefined;
  readonly slowestHealthzMs: number;
  /** The largest RSS over the RSS at the case's start, sampled every 20 ms, in bytes. */
  readonly rssGrowth: number;
}

function errorCode(surface: HostileCase['surface'], body: string): string | undefined {
  let json: { error?: { code?: string }; errors?: { extensions?: { code?: string } }[] };
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    // Only the first 64 KiB are kept: a large body is an answer, not a refusal.
    return undefined;
  }
  return surface === 'cypher' ? json.error?.code : json.errors?.[0]?.extensions?.code ?? (json.errors === undefined ? undefined : 'GRAPHQL_ERROR');
}

/**
 * Sends one hostile case and checks what no input may break: it is answered or refused within twice
 * the time budget, never with a fault of ours (500); /healthz keeps answering within 500 ms while it
 * runs; and a write that is refused leaves the graph's version as it was. Throws, describing the
 * case, when one does not hold.
 */
export async function runCase(target: FuzzTarget, hostile: HostileCase): Promise<CaseOutcome> {
  const fail = (what: string): never => {
    throw new Error(`${what}\n  case: ${hostile[fc.toStringMethod]()}`);
  };
  const before = hostile.write ? await graphVersion(target.origin) : undefined;
  target.prober.reset();
  const rssBefore = target.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, target.rss());
  }, 20);
  const answer = await post(target.origin, hostile.path, hostile.body(), target.timeBudgetMs * 10)
    .catch((error: Error) => fail(`no answer: ${error.message}${target.alive() ? '' : ' (the server died)'}`))
    .finally(() => clearInterval(sampler));
  const slowestHealthzMs = target.prober.slowestMs();
  const rssGrowth = Math.max(rssPeak, target.rss()) - rssBefore;
  const code = errorCode(hostile.surface, answer.body);
  if (answer.ms > 2 * target.timeBudgetMs) fail(`answered in ${Math.round(answer.ms)} ms, over twice the ${target.timeBudgetMs} ms time budget (status ${answer.status}, ${code ?? 'answered'})`);
  if (answer.status >= 500 && answer.status !== 503) fail(`answered ${answer.status} ${code ?? ''}: ${answer.body.slice(0, 300)}`);
  if (code === 'TG_INTERNAL') fail(`an internal fault: ${answer.body.slice(0, 300)}`);
  if (slowestHealthzMs > HEALTHZ_BOUND_MS) fail(`/healthz took ${slowestHealthzMs} ms while the case ran (${Math.round(answer.ms)} ms, ${code ?? 'answered'})`);
  if (target.prober.failures() > 0) fail(`/healthz failed ${target.prober.failures()} times while the case ran`);
  if (rssGrowth > RSS_GROWTH_BOUND) fail(`the server's RSS grew by ${Math.round(rssGrowth / 1048576)} MiB while the case ran (bound ${RSS_GROWTH_BOUND / 1048576} MiB)`);
  if (before !== undefined && code !== undefined) {
    const after = await graphVersion(target.origin);
    if (after !== before) fail(`a refused write (${code}) changed the graph: version ${before} → ${after}`);
  }
  return { ms: answer.ms, status: answer.status, code, slowestHealthzMs, rssGrowth };
}
