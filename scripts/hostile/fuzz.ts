// `npm run fuzz -- --minutes N [--seed S] [--budget-ms MS]`: the hostile fuzzer of test/hostile/fuzz.test.ts
// run for N minutes (default 5) instead of one run of 40 cases. Runs batches of 40 generated requests, each
// batch with its own seed (the first is --seed, or random), against one server in a child process. Every
// batch starts from the hostile graph as imported (the server drops it and imports it again): what earlier
// batches' accepted writes added would otherwise pile up for the whole run (853 MiB of heap after GC in one
// 10-minute run), so late batches measured a graph no test describes and no seed could replay. After each
// reset the heap after GC is held to the short run's bound against the start, which a leak breaks. Prints
// every finding (what broke, the batch's seed: FUZZ_SEED=<seed> npm test -- test/hostile/fuzz.test.ts
// replays that batch), then a summary: cases run, outcomes by code, the largest heap growth after a reset.
// Exits 1 when anything was found.
import fc from 'fast-check';
import { hostileCase } from '../../test/hostile/fuzz/hostile-cases.ts';
import { startFuzzTarget } from '../../test/hostile/fuzz/fuzz-target.ts';
import { CASES_PER_RUN, HEAP_GROWTH_BOUND, runCase } from '../../test/hostile/fuzz/run-case.ts';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const minutes = Number(option('--minutes') ?? 5);
const budgetMs = Number(option('--budget-ms') ?? 2000);
let seed = Number(option('--seed') ?? Math.floor(Math.random() * 2 ** 31));
if (!(minutes > 0) || !(budgetMs > 0) || !Number.isInteger(seed)) {
  process.stderr.write('usage: npm run fuzz -- [--minutes N] [--seed S] [--budget-ms MS]\n');
  process.exit(2);
}

const target = await startFuzzTarget({ TOOLGRAPH_QUERY_TIMEOUT_MS: String(budgetMs) });
const heapBefore = await target.heapAfterGc();
const deadline = Date.now() + minutes * 60_000;
const codes = new Map<string, number>();
const findings: string[] = [];
let cases = 0;
let batches = 0;
/** The largest heap growth after GC seen after a reset, against the start. */
let largestGrowth = 0;
/** The slowest /healthz answer and the slowest case seen, with what the case was. */
let slowestHealthz = { ms: 0, what: '' };
let slowestAnswer = { ms: 0, what: '' };
let largestRss = { mib: 0, what: '' };
try {
  while (Date.now() < deadline) {
    if (batches++ > 0) {
      await target.reset();
      const growth = (await target.heapAfterGc()) - heapBefore;
      largestGrowth = Math.max(largestGrowth, growth);
      if (growth >= HEAP_GROWTH_BOUND) {
        const finding = `before seed ${seed}: the heap after GC grew ${Math.round(growth / 1048576)} MiB over the hostile graph imported afresh (bound ${HEAP_GROWTH_BOUND / 1048576} MiB): earlier batches left memory behind`;
        findings.push(finding);
        process.stdout.write(`FINDING ${finding}\n`);
      }
    }
    const result = await fc.check(fc.asyncProperty(hostileCase, async (hostile) => {
      const outcome = await runCase(target, hostile);
      cases++;
      const key = outcome.code ?? 'answered';
      const what = `${hostile[fc.toStringMethod]().slice(0, 160)} → ${key}`;
      if (outcome.slowestHealthzMs > slowestHealthz.ms) slowestHealthz = { ms: outcome.slowestHealthzMs, what };
      if (outcome.ms > slowestAnswer.ms) slowestAnswer = { ms: Math.round(outcome.ms), what };
      if (outcome.rssGrowth / 1048576 > largestRss.mib) largestRss = { mib: Math.round(outcome.rssGrowth / 1048576), what };
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }), { numRuns: CASES_PER_RUN, seed, endOnFailure: true });
    if (result.failed) {
      const finding = `seed ${seed}: ${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}`;
      findings.push(finding);
      process.stdout.write(`FINDING ${finding}\n`);
    }
    process.stderr.write(`${cases} cases, ${findings.length} findings, ${Math.max(0, Math.round((deadline - Date.now()) / 1000))} s left\n`);
    seed = (seed + 1) % 2 ** 31;
  }
} finally {
  const growth = (await target.heapAfterGc()) - heapBefore;
  await target.close();
  process.stdout.write(`${cases} cases in ${batches} batches, ${minutes} min; outcomes ${JSON.stringify(Object.fromEntries(codes))}; heap after GC grew at most ${Math.round(largestGrowth / 1048576)} MiB after a reset, ${Math.round(growth / 1048576)} MiB at the end (after the last batch's writes); ${findings.length} findings\n`);
  process.stdout.write(`slowest /healthz ${slowestHealthz.ms} ms (${slowestHealthz.what}); slowest answer ${slowestAnswer.ms} ms (${slowestAnswer.what}); largest RSS growth in a case ${largestRss.mib} MiB (${largestRss.what})\n`);
}
process.exit(findings.length === 0 ? 0 : 1);
