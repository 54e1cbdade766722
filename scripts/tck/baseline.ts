// The committed floor: the scenarios that passed when it was last written. A scenario in it that no
// longer passes is a regression; `npm run tck -- --update-baseline` rewrites it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Counts, SuiteResult } from './suite.ts';

export const BASELINE_PATH = new URL('../../test/tck/baseline.json', import.meta.url).pathname;

export interface Baseline {
  readonly totals: Counts;
  /** Keys (`file: title #example`) of the scenarios that passed, sorted. */
  readonly passed: readonly string[];
}

export function readBaseline(path = BASELINE_PATH): Baseline | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as Baseline;
}

export function writeBaseline(suite: SuiteResult, path = BASELINE_PATH): void {
  const passed = suite.results.filter((r) => r.status === 'passed').map((r) => r.key).sort();
  const baseline: Baseline = { totals: suite.totals, passed };
  writeFileSync(path, `${JSON.stringify(baseline, null, 2)}\n`);
}

export interface FloorCheck {
  /** In the baseline, run now, and not passing: regressions. */
  readonly regressions: readonly { key: string; reason: string }[];
  /** Passing now and not in the baseline. */
  readonly newlyPassing: readonly string[];
}

/** Compares a run with the baseline; scenarios the run left out (a --filter) are not regressions. */
export function checkFloor(suite: SuiteResult, baseline: Baseline): FloorCheck {
  const floor = new Set(baseline.passed);
  const regressions = suite.results.filter((r) => floor.has(r.key) && r.status !== 'passed').map((r) => ({ key: r.key, reason: r.reason }));
  const newlyPassing = suite.results.filter((r) => r.status === 'passed' && !floor.has(r.key)).map((r) => r.key);
  return { regressions, newlyPassing };
}
