// The README's configuration table says it lists every setting: every environment variable the code
// reads (src/ and scripts/) is a row of it, or is named with why in NOT_SETTINGS.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NOT_SETTINGS, envVarsRead, tableEnvVars, unlistedEnvVars } from '../../scripts/docs/readme-tables.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(new URL('README.md', `file://${ROOT}`), 'utf8');
const table = readme.slice(readme.indexOf('<!-- config-table:start -->'), readme.indexOf('<!-- config-table:end -->'));

describe('the configuration table names every environment variable the code reads', () => {
  it('finds the reads this code uses', () => {
    const source = [
      "const a = process.env['ONE'];", 'const b = process.env.TWO;', "const c = env['THREE'] ?? env?.FOUR;",
      "join(base(env, 'FIVE', '.config'));", 'const { SIX, SEVEN: seven } = process.env;', "env[name]; process.env['lower']",
    ].join('\n');
    expect([...envVarsRead(source)].sort()).toEqual(['FIVE', 'FOUR', 'ONE', 'SEVEN', 'SIX', 'THREE', 'TWO']);
  });

  it('finds the variables the commands read outside the settings', () => {
    const read = new Set(['src/cli/commands/schema-command.ts', 'src/cli/commands/secret-manager-program.ts', 'src/cli/commands/serve-command.ts']
      .flatMap((file) => [...envVarsRead(readFileSync(`${ROOT}${file}`, 'utf8'))]));
    for (const name of ['TOOLGRAPH_URL', 'TOOLGRAPH_SECRETS_FILE', 'TOOLGRAPH_ID_TOKEN_FILE', 'TOOLGRAPH_ID_TOKEN']) expect(read).toContain(name);
  });

  it('every variable read in src/ and scripts/ is a row, or not a setting with a reason', () => {
    expect(Object.fromEntries(unlistedEnvVars(ROOT))).toEqual({});
  });

  it.each(['TOOLGRAPH_URL', 'TOOLGRAPH_SECRETS_FILE', 'TOOLGRAPH_ID_TOKEN_FILE', 'TOOLGRAPH_ID_TOKEN'])('README has a row for %s', (name) => {
    expect(tableEnvVars()).toContain(name);
    expect(table).toContain(`| \`${name}\` |`);
  });

  it('no variable is both a row and "not a setting"', () => {
    for (const name of Object.keys(NOT_SETTINGS)) expect(tableEnvVars().has(name), name).toBe(false);
  });

  it('`readme-tables.ts --check` passes on this checkout', () => {
    const run = spawnSync(process.execPath, ['scripts/docs/readme-tables.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
