import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../../src/cli/command-descriptions.ts';
import { COMMANDS } from '../../src/cli/command-table.ts';
import { createProgram, runProgram } from '../../src/cli/program.ts';
import { SETTINGS, type SettingDef } from '../../src/config/index.ts';

async function run(args: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const io: CliIo = { out: (l) => lines.push(l), err: (l) => errors.push(l) };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const code = await runProgram(args, io);
    // Commander wraps help to the terminal width; one space between words makes lines comparable.
    return { code, out: lines.join('\n').replace(/\s+/g, ' '), err: errors.join('\n') };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const FLAGGED = Object.values(SETTINGS as Record<string, SettingDef<unknown, unknown>>).filter((def) => def.flag !== undefined);

describe('serve --help', () => {
  it('shows each setting with its env var, default and accepted values', async () => {
    const help = await run(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('--auth-type <value> Auth type of every HTTP service of the process (the spec names it for the tool-server transport) (env AUTH_TYPE; default none; expects one of none, oidc-proxy, oauth-proxy, jwt, remote)');
    expect(help.out).toContain('--port <value> Port shared by every HTTP service of the process (0 picks a free one) (env PORT; default 4000; expects an integer from 0 to 65535)');
    expect(help.out).toContain('--data-dir <value> Where the file persistence keeps graphs (env TOOLGRAPH_DATA_DIR; default $XDG_DATA_HOME/toolgraph; expects an absolute path)');
    expect(help.out).toContain('(env DATABASE_URL; unset by default; expects a postgres:// or postgresql:// URL)');
    expect(help.out).toContain('--enable-delegation [value]');
    expect(help.out).toContain('--only <services> Run only these services, comma-separated: any of graph, catalogue, tools (default: all of them)');
    for (const def of FLAGGED) expect(help.out, def.flag).toContain(`${def.flag} `);
  });

  it('config and tools serve take every setting too', async () => {
    for (const args of [['config', '--help'], ['tools', 'serve', '--help']]) {
      const help = await run(args);
      for (const def of FLAGGED) expect(help.out, `${args[0]} ${def.flag}`).toContain(`${def.flag} `);
      expect(help.out).not.toContain('Only the settings this command reads are flags here');
    }
  });
});

describe('other commands list only the settings they read', () => {
  it.each<[string[], string[], string[]]>([
    [['graph', 'list'], ['--data-dir', '--persistence', '--database-url', '--log-level', '--config', '--json'], ['--port', '--auth-type', '--query-max-rows', '--graphql-max-depth']],
    [['graph', 'import'], ['--data-dir', '--create', '--resume'], ['--host', '--oidc-config-url']],
    [['access', 'set'], ['--data-dir', '--file'], ['--port']],
    [['introspect'], ['--data-dir', '--out'], ['--port', '--cache-dir']],
    [['cypher'], ['--data-dir', '--query-max-rows', '--query-max-result-bytes', '--query-timeout-ms', '--query-max-stall-ms', '--params'], ['--port', '--graphql-max-depth']],
    [['explain'], ['--data-dir', '--graphql-introspection', '--variables'], ['--query-max-rows', '--port']],
    [['schema', 'search'], ['--host', '--port', '--url', '--limit'], ['--data-dir', '--cache-dir', '--log-level']],
    [['schema', 'get'], ['--host', '--port', '--cache-dir', '--out'], ['--data-dir']],
    [['auth', 'login'], ['--oidc-config-url', '--oidc-client-id', '--state-dir', '--device'], ['--oidc-client-secret', '--port', '--data-dir', '--log-level']],
  ])('%j', async (command, shown, absent) => {
    const help = await run([...command, '--help']);
    expect(help.code).toBe(0);
    for (const flag of shown) expect(help.out, flag).toContain(`${flag} `);
    for (const flag of absent) expect(help.out, flag).not.toContain(`${flag} `);
    expect(help.out).toContain('Only the settings this command reads are flags here. Every setting also comes from its env var or config.json ($XDG_CONFIG_HOME/toolgraph/config.json, or --config FILE): `toolgraph config` lists them all');
  });

  it('refuses a setting flag the command does not read, suggesting the nearest of its own', async () => {
    const other = await run(['graph', 'list', '--port', '4000']);
    expect(other.code).toBe(1);
    expect(other.err).toContain("error: unknown option '--port'");
    const typo = await run(['graph', 'list', '--data-dri', '/tmp/x']);
    expect(typo.code).toBe(1);
    expect(typo.err).toContain("error: unknown option '--data-dri'\n(Did you mean --data-dir?)");
  });

  it('after a typo prints the suggestion and one line pointing to --help, not the whole help', async () => {
    const typo = await run(['graph', 'import', 'demo', 'people.jsonl', '--creat']);
    expect(typo.code).toBe(1);
    expect(typo.err).toBe("error: unknown option '--creat'\n(Did you mean --create?)\nRun `toolgraph graph import --help` for its usage.");
    const command = await run(['graph', 'imprt']);
    expect(command.err).toBe("error: unknown command 'imprt'\n(Did you mean import?)\nRun `toolgraph graph --help` for its usage.");
    const top = await run(['cyper']);
    expect(top.err).toBe("error: unknown command 'cyper'\n(Did you mean cypher?)\nRun `toolgraph --help` for its usage.");
  });

  it('still resolves every setting from the environment, as before', async () => {
    const result = await run(['graph', 'list'], { PORT: 'many' });
    expect(result).toMatchObject({ code: 78, err: 'toolgraph: TG_CONFIG_INVALID: PORT from env: expected an integer from 0 to 65535, got "many"' });
  });

  it('the client secret is accepted by auth login but not advertised', async () => {
    const result = await run(['auth', 'login', 'jira', '--oidc-client-secret', 'from-a-flag'], { OIDC_CLIENT_ID: '', OIDC_CONFIG_URL: '' });
    expect(result.err).not.toContain('unknown option');
    expect(result.err).toContain('auth login needs the OAuth client');
  });
});

describe('the top-level help lists every command without registering it', () => {
  it('each listed term and description is what the full registration makes commander print', async () => {
    const program = await createProgram({ out: () => undefined, err: () => undefined });
    const help = new Help();
    expect(program.commands.map((command) => command.name())).toEqual(COMMANDS.map((entry) => entry.name));
    for (const entry of COMMANDS) {
      const command = program.commands.find((c) => c.name() === entry.name)!;
      expect(help.subcommandTerm(command)).toBe(entry.term);
      expect(command.description()).toBe(COMMAND_DESCRIPTIONS[entry.name]);
    }
  });

  it('prints them all, and suggests the nearest for a typo', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const entry of COMMANDS) expect(help.out).toContain(`${entry.term} ${COMMAND_DESCRIPTIONS[entry.name].split(' ').slice(0, 3).join(' ')}`);
    const typo = await run(['cyper', 'demo', 'RETURN 1']);
    expect(typo.err).toContain("error: unknown command 'cyper'\n(Did you mean cypher?)");
  });
});
