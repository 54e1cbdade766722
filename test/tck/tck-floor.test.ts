import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkFloor, readBaseline } from '../../scripts/tck/baseline.ts';
import { DEFAULT_FEATURES, WHERE_FEATURES_COME_FROM, loadScenarios, passRate, runSuite } from '../../scripts/tck/suite.ts';
import { reportSkip } from '../support/skip-reason.ts';

// The openCypher TCK through the real Cypher path (scripts/tck, docs/tck.md): a regression floor.
// Every scenario test/tck/baseline.json lists as passing must still pass.
const available = existsSync(DEFAULT_FEATURES);
if (!available) reportSkip('The openCypher TCK floor', `no feature files at ${DEFAULT_FEATURES}; ${WHERE_FEATURES_COME_FROM}`, 'npm run tck, or npx vitest run test/tck');

describe.skipIf(!available)('the openCypher TCK', () => {
  it('passes every scenario the baseline lists', async () => {
    const baseline = readBaseline();
    expect(baseline, 'test/tck/baseline.json is missing: npm run tck -- --update-baseline').not.toBeNull();
    const suite = await runSuite(loadScenarios(DEFAULT_FEATURES));
    const floor = checkFloor(suite, baseline!);
    if (floor.newlyPassing.length > 0) {
      console.log(`${floor.newlyPassing.length} TCK scenarios pass that test/tck/baseline.json does not list; raise the floor: npm run tck -- --update-baseline`);
    }
    const t = suite.totals;
    console.log(`TCK: ${t.passed} passed (${(100 * passRate(t)).toFixed(1)}% of ${t.passed + t.failed + t.other} in the model), ${t.failed} failed, ${t.other} other, ${t.outside} outside the model, in ${(suite.ms / 1000).toFixed(1)} s`);
    expect(floor.regressions.map((r) => `${r.key}: ${r.reason}`)).toEqual([]);
    // Every baseline scenario still exists (a renamed one would slip out of the floor unseen).
    const keys = new Set(suite.results.map((r) => r.key));
    expect(baseline!.passed.filter((k) => !keys.has(k))).toEqual([]);
  }, 120_000);
});
