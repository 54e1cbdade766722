// `npm run tck [-- --features DIR] [--filter PATH] [--verbose] [--json FILE] [--update-baseline]`:
// runs the openCypher TCK's scenarios through toolgraph's Cypher path and prints a table per feature
// folder (docs/tck.md). Exits non-zero when a scenario of the committed baseline no longer passes.
import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkFloor, readBaseline, writeBaseline, BASELINE_PATH } from './baseline.ts';
import { DEFAULT_FEATURES, WHERE_FEATURES_COME_FROM, loadScenarios, runSuite, table, todo } from './suite.ts';

const { values } = parseArgs({
  options: {
    features: { type: 'string', default: DEFAULT_FEATURES },
    filter: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    json: { type: 'string' },
    'update-baseline': { type: 'boolean', default: false },
  },
});

if (!existsSync(values.features)) {
  console.error(`No TCK feature files at ${values.features}: ${WHERE_FEATURES_COME_FROM}.`);
  process.exit(2);
}
const scenarios = loadScenarios(values.features, values.filter);
const suite = await runSuite(scenarios);
console.log(table(suite));
console.log(`(${scenarios.length} scenarios in ${(suite.ms / 1000).toFixed(1)} s)`);

if (values.verbose) {
  console.log('\nFailed:');
  for (const r of suite.results) if (r.status === 'failed') console.log(`  ${r.key}\n      ${r.reason}`);
  console.log('\nOther (not yet supported, or a crash), by construct:');
  for (const [construct, n] of todo(suite)) console.log(`  ${String(n).padStart(5)}  ${construct}`);
  console.log('\nOutside the graph model, by reason:');
  const outside = new Map<string, number>();
  for (const r of suite.results) if (r.status === 'outside') outside.set(r.construct ?? '?', (outside.get(r.construct ?? '?') ?? 0) + 1);
  for (const [reason, n] of [...outside].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${reason}`);
  console.log('\nSlowest scenarios:');
  for (const r of [...suite.results].sort((a, b) => b.ms - a.ms).slice(0, 5)) console.log(`  ${String(r.ms).padStart(5)} ms  ${r.key}`);
}

if (values.json !== undefined) {
  writeFileSync(values.json, `${JSON.stringify({ totals: suite.totals, folders: Object.fromEntries(suite.folders), results: suite.results, todo: todo(suite) }, null, 2)}\n`);
}

if (values['update-baseline']) {
  if (values.filter !== undefined) throw new Error('--update-baseline needs the whole TCK: leave out --filter');
  writeBaseline(suite);
  console.log(`wrote ${BASELINE_PATH}`);
} else {
  const baseline = readBaseline();
  if (baseline !== null) {
    const floor = checkFloor(suite, baseline);
    for (const r of floor.regressions) console.log(`REGRESSION: ${r.key}\n      ${r.reason}`);
    if (floor.newlyPassing.length > 0) console.log(`${floor.newlyPassing.length} scenarios pass that the baseline does not list: npm run tck -- --update-baseline`);
    if (floor.regressions.length > 0) process.exitCode = 1;
  }
}
