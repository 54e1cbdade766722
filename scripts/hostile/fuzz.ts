// `npm run fuzz -- --minutes N [--seed S] [--budget-ms MS]`: the hostile fuzzer of test/hostile/fuzz.test.ts
// run for N minutes (default 5) instead of 40 cases. Runs batches of 50 generated requests, each batch with
// its own seed (the first is --seed, or random), against one server in a child process, and prints every
// finding (the failing case, what broke, the batch's seed to replay it with FUZZ_SEED=<seed> npm test
// -- test/hostile/fuzz.test.ts), then a summary: cases run, outcomes by code, heap growth after GC.
// Exits 1 when anything was found.
import fc from 'fast-check';
import { hostileCase } from '../../test/hostile/fuzz/hostile-cases.ts';
import { startFuzzTarget } from '../../test/hostile/fuzz/fuzz-target.ts';
import { runCase } from '../../test/hostile/fuzz/run-case.ts';

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
/** The slowest /healthz answer and the slowest case seen, with what the case was. */
let slowestHealthz = { ms: 0, what: '' };
let slowestAnswer = { ms: 0, what: '' };
try {
  while (Date.now() < deadline) {
    const result = await fc.check(fc.asyncProperty(hostileCase, async (hostile) => {
      const outcome = await runCase(target, hostile);
      cases++;
      const key = outcome.code ?? 'answered';
      const what = `${hostile[fc.toStringMethod]().slice(0, 160)} → ${key}`;
      if (outcome.slowestHealthzMs > slowestHealthz.ms) slowestHealthz = { ms: outcome.slowestHealthzMs, what };
      if (outcome.ms > slowestAnswer.ms) slowestAnswer = { ms: Math.round(outcome.ms), what };
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }), { numRuns: 50, seed, endOnFailure: true });
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
  process.stdout.write(`${cases} cases in ${minutes} min; outcomes ${JSON.stringify(Object.fromEntries(codes))}; heap after GC grew ${Math.round(growth / 1048576)} MiB; ${findings.length} findings\n`);
  process.stdout.write(`slowest /healthz ${slowestHealthz.ms} ms (${slowestHealthz.what}); slowest answer ${slowestAnswer.ms} ms (${slowestAnswer.what})\n`);
}
process.exit(findings.length === 0 ? 0 : 1);
