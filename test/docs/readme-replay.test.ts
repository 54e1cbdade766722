import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INSPECTOR, normalise, replayTour, tourSteps } from '../../scripts/docs/replay-tour.ts';

const root = new URL('../../', import.meta.url);

describe('the README tour replays', () => {
  it('reads every command of the tour, with the output the page shows', () => {
    const steps = tourSteps(readFileSync(new URL('README.md', root), 'utf8'));
    expect(steps.length).toBeGreaterThan(40);
    expect(steps[0]!.command).toBe('tmp=$(mktemp -d)');
    expect(steps.find((s) => s.command.startsWith('curl -s localhost:4000/livez'))?.expected).toEqual(['{"status":"alive"}']);
    expect(normalise('wrote /tmp/tmp.AbC123/x and kid nfCwbg1BNj3LdauQGa2mLgVL4pGWOqdRADibxHVaCR8 (EdDSA)')).toBe('wrote $TMP/x and kid <kid> (EdDSA)');
  });

  // The built server and CLIs, as `npm start` and `npx toolgraph` run them (.ci/run builds first).
  it('twice in a row, each pass as on a fresh clone, with the page\'s output', { timeout: 600_000 }, async () => {
    if (!existsSync(new URL('dist/src/cli/toolgraph.js', root))) throw new Error('dist/ is missing: npm run build first (.ci/run does)');
    const result = await replayTour(2);
    expect(result.differences).toEqual([]);
    // Only the MCP Inspector's calls are left out: npx downloads the Inspector.
    expect(result.skipped.every((command) => INSPECTOR.test(command))).toBe(true);
    expect(result.skipped).toHaveLength(3);
  });
});
