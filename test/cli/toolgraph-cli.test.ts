import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';

function memoryIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

describe('toolgraph config', () => {
  it('prints resolved values with their sources, flag beating env', async () => {
    const io = memoryIo();
    const previous = process.env['SERVICE_GRAPHQL_MAX_SESSION_SECS'];
    process.env['SERVICE_GRAPHQL_MAX_SESSION_SECS'] = '60';
    try {
      const code = await runProgram(['config', '--json', '--graphql-max-connections', '7', '--config', '/dev/null/none.json'], io);
      expect(code).toBe(78);
      expect(io.errors.join('\n')).toContain('TG_CONFIG_INVALID: config file /dev/null/none.json: cannot be read');
      const ok = memoryIo();
      expect(await runProgram(['config', '--json', '--graphql-max-connections', '7', '--enable-delegation', 'false'], ok)).toBe(0);
      const printed = JSON.parse(ok.lines.join('\n')) as { settings: { name: string; value: string; source: string }[] };
      const byName = new Map(printed.settings.map((s) => [s.name, s]));
      expect(byName.get('graphqlMaxConnections')).toMatchObject({ value: '7', source: 'flag' });
      expect(byName.get('graphqlMaxSessionSecs')).toMatchObject({ value: '60', source: 'env' });
      expect(byName.get('enableDelegation')).toMatchObject({ value: 'false', source: 'flag' });
    } finally {
      if (previous === undefined) delete process.env['SERVICE_GRAPHQL_MAX_SESSION_SECS'];
      else process.env['SERVICE_GRAPHQL_MAX_SESSION_SECS'] = previous;
    }
  });

  it('a bare --enable-delegation means true', async () => {
    const io = memoryIo();
    const code = await runProgram(['config', '--json', '--enable-delegation'], io);
    // Delegation needs its audience and discovery URL, so the combination check names what is missing.
    expect(code).toBe(78);
    expect(io.errors.join('\n')).toContain('AUDIENCE is required when ENABLE_DELEGATION is true');
  });

  it('refuses an unknown command, pointing to --help', async () => {
    const io = memoryIo();
    expect(await runProgram(['frobnicate'], io)).not.toBe(0);
    expect(io.errors.join('\n')).toBe("error: unknown command 'frobnicate'\nRun `toolgraph --help` for its usage.");
  });
});

describe('toolgraph serve (the real entry point in a child process)', () => {
  it('prints where each service listens, answers /healthz, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['src/cli/toolgraph.ts', 'serve', '--port', '0', '--log-level', 'silent', '--persistence', 'memory'], {
      cwd: new URL('../..', import.meta.url),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const origin = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        const match = /toolgraph listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (match && stdout.includes('/healthz')) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${stdout}`)));
    });
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('ok');
    expect(stdout).toContain(`  graphql    ${origin}/graphql/{graph}`);
    // The README's first GraphQL request.
    const answer = await fetch(`${origin}/graphql/demo`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ Person(first: 2) { name WORKS_AT { name } } }' }),
    });
    expect(await answer.json()).toMatchObject({ data: { Person: [{ name: 'Ada Lovelace', WORKS_AT: [{ name: 'Acme Analytics' }, { name: 'Lumen Foundation' }] }, { name: 'Grace Hopper' }] } });
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('fails start-up with exit code 78 and the setting named when a value is bad', async () => {
    const child = spawn(process.execPath, ['src/cli/toolgraph.ts', 'serve', '--graphql-addr', '0.0.0.0:7879'], {
      cwd: new URL('../..', import.meta.url),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(78);
    expect(stderr).toContain('--graphql-addr from flag: expected a loopback address');
  });
});
