import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BENCH = path.join(import.meta.dirname, '../../scripts/bench');

/** Runs the bench runner as `npm run bench -- …` does (never a suite here: they take minutes). */
async function bench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(BENCH, 'run.ts'), ...args], { timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function suites(listing: string): Map<string, string> {
  const rows = listing.slice(listing.indexOf('suites:')).split('\n').slice(1).filter((l) => l.startsWith('  '));
  return new Map(rows.map((l) => {
    const [name, ...about] = l.trim().split(/\s+/);
    return [name!, about.join(' ')];
  }));
}

describe('npm run bench', () => {
  it('lists the suites and exits 0 when no suite is named, running none', async () => {
    const { code, stdout } = await bench([]);
    expect(code).toBe(0);
    const listed = suites(stdout);
    for (const name of ['catalogue', 'engine', 'persist']) expect(listed.get(name)).toBeTruthy();
    expect(stdout).not.toContain('== ');
  });

  it('refuses an unknown suite with exit code 2 and the list', async () => {
    const { code, stderr } = await bench(['nope']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown bench suite "nope"');
    expect(suites(stderr).has('persist')).toBe(true);
  });

  it('passes options after the suite names to the suite', async () => {
    // The engine suite's churn part at a toy size: seconds, not minutes.
    const { code, stdout } = await bench(['engine', '--skip', 'reads', '--churn', '300', '--hub', '200', '--one-batch', '100']);
    expect(code).toBe(0);
    expect(stdout).toContain('== engine:');
    expect(stdout).toContain('300 nodes: insert, then delete all');
    expect(stdout).toContain('hub with 200 in-edges');
    expect(stdout).not.toContain('1000000 nodes');
  });
});
