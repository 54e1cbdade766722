import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { COMMANDS } from '../../src/cli/command-table.ts';
import { createProgram } from '../../src/cli/program.ts';
import { topLevelHelp } from '../../src/cli/top-level-help.ts';

const quiet: CliIo = { out: () => {}, err: () => {} };
const ROOT = new URL('../..', import.meta.url);

/** What commander prints for the whole program (every command registered in full) at `width` columns. */
async function commanderHelp(width: number): Promise<string> {
  const program = await createProgram(quiet);
  program.configureHelp({ ...program.configureHelp(), helpWidth: width });
  return program.helpInformation().trimEnd();
}

describe('toolgraph --help without commander', () => {
  it('is what commander prints for the full program, at every terminal width', async () => {
    for (const width of [10, 39, 40, 41, 60, 79, 80, 81, 100, 120, 132, 200, 1000]) {
      expect(topLevelHelp(width), `width ${width}`).toBe(await commanderHelp(width));
    }
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 400 }), async (width) => {
        expect(topLevelHelp(width)).toBe(await commanderHelp(width));
      }),
      { numRuns: 60 },
    );
  });

  it('lists every command of the table, then help', () => {
    const help = topLevelHelp(1000);
    const terms = help.split('Commands:\n')[1]!.split('\n').map((line) => line.trim().split(/\s{2,}/)[0]);
    expect(terms).toEqual([...COMMANDS.map((entry) => entry.term), 'help [command]']);
  });

  it.each([['--help'], ['-h'], ['help']])('`toolgraph %s` prints it at 80 columns when stdout is not a terminal, exit 0', (flag) => {
    const run = spawnSync(process.execPath, ['src/cli/toolgraph.ts', flag], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toBe(`${topLevelHelp(80)}\n`);
  });
});
