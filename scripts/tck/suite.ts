// Reads the TCK's feature files, runs every scenario, and tallies the outcomes per feature folder.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseFeature, scenarioKey, type Scenario } from './gherkin.ts';
import { runScenario, type Outcome, type Status } from './scenario.ts';

/** Where the features are by default: the openCypher repository's `tck/features`, beside the clone. */
/** Where the feature files are: TOOLGRAPH_TCK_FEATURES, else ../shared/tck/features beside the clone. */
export const DEFAULT_FEATURES = process.env.TOOLGRAPH_TCK_FEATURES || new URL('../../../shared/tck/features', import.meta.url).pathname;

export const WHERE_FEATURES_COME_FROM =
  'the feature files are the openCypher repository\'s tck/features folder (https://github.com/opencypher/openCypher, the commit noted in shared/tck/README.md beside the clone); '
  + 'put them at ../shared/tck/features relative to the clone, set TOOLGRAPH_TCK_FEATURES, or pass --features DIR';

function featureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...featureFiles(path));
    else if (entry.name.endsWith('.feature')) out.push(path);
  }
  return out.sort();
}

export function loadScenarios(dir: string, filter?: string): Scenario[] {
  if (!existsSync(dir)) throw new Error(`no TCK features at ${dir}: ${WHERE_FEATURES_COME_FROM}`);
  const scenarios: Scenario[] = [];
  for (const path of featureFiles(dir)) {
    const file = relative(dir, path).split(sep).join('/');
    if (filter !== undefined && !file.includes(filter)) continue;
    scenarios.push(...parseFeature(file, readFileSync(path, 'utf8')));
  }
  return scenarios;
}

export interface ScenarioResult extends Outcome {
  readonly key: string;
  /** The folder that groups it in the table: `clauses/match`. */
  readonly folder: string;
  /** Wall-clock time of the scenario, fresh engine included. */
  readonly ms: number;
}

export type Counts = Record<Status, number>;

export interface SuiteResult {
  readonly results: readonly ScenarioResult[];
  readonly folders: ReadonlyMap<string, Counts>;
  readonly totals: Counts;
  readonly ms: number;
}

const zero = (): Counts => ({ passed: 0, failed: 0, outside: 0, other: 0 });

export async function runSuite(scenarios: readonly Scenario[], onResult?: (r: ScenarioResult) => void): Promise<SuiteResult> {
  const started = performance.now();
  const results: ScenarioResult[] = [];
  const folders = new Map<string, Counts>();
  const totals = zero();
  for (const scenario of scenarios) {
    const start = performance.now();
    const outcome = await runScenario(scenario);
    const folder = scenario.file.split('/').slice(0, -1).join('/');
    const result: ScenarioResult = { ...outcome, key: scenarioKey(scenario), folder, ms: Math.round(performance.now() - start) };
    results.push(result);
    let counts = folders.get(folder);
    if (counts === undefined) folders.set(folder, (counts = zero()));
    counts[outcome.status]++;
    totals[outcome.status]++;
    onResult?.(result);
  }
  return { results, folders, totals, ms: performance.now() - started };
}

/** Passed scenarios as a share of those that fit the graph model (everything but `outside`). */
export function passRate(c: Counts): number {
  const inModel = c.passed + c.failed + c.other;
  return inModel === 0 ? 0 : c.passed / inModel;
}

const pct = (n: number) => `${(100 * n).toFixed(1)}%`;

/** The table: one row per feature folder, then the totals. */
export function table(suite: SuiteResult): string {
  const rows: string[][] = [['folder', 'passed', 'failed', 'other', 'outside model', 'passed of in-model']];
  const row = (name: string, c: Counts) => [name, String(c.passed), String(c.failed), String(c.other), String(c.outside), pct(passRate(c))];
  for (const [folder, c] of [...suite.folders].sort(([a], [b]) => (a < b ? -1 : 1))) rows.push(row(folder, c));
  rows.push(row('total', suite.totals));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => `| ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  const t = suite.totals;
  const all = t.passed + t.failed + t.other + t.outside;
  const inModel = all - t.outside;
  const share = (n: number, of: number) => `${n} (${pct(of === 0 ? 0 : n / of)})`;
  return [
    line(rows[0]!), rule, ...rows.slice(1).map(line), '',
    `${all} scenarios: ${share(t.outside, all)} outside the graph model, ${inModel} in the model; of those ${share(t.passed, inModel)} passed, `
      + `${share(t.failed, inModel)} failed, ${share(t.other, inModel)} other (refused as not yet supported, or a crash).`,
  ].join('\n');
}

/** The `other` scenarios grouped by the construct refused, most frequent first: what to build next. */
export function todo(suite: SuiteResult): [string, number][] {
  const counts = new Map<string, number>();
  for (const r of suite.results) if (r.status === 'other') counts.set(r.construct ?? '?', (counts.get(r.construct ?? '?') ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}
