import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSecretManager } from '../../src/cli/commands/secret-manager-program.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { Browser } from '../support/browser.ts';
import { closedPort } from '../support/closed-port.ts';
import { AUDIENCE, captureLogger, startStoreFixture, type Fixture } from './store-fixture.ts';

function memoryIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

let f: Fixture;
let env: NodeJS.ProcessEnv;
let aliceFile: string;
let alice: string;
beforeAll(async () => {
  f = await startStoreFixture();
  alice = await f.idp.mintToken({ sub: 'alice', groups: ['eng'] });
  aliceFile = join(f.dir, 'alice.jwt');
  writeFileSync(aliceFile, `${alice}\n`);
  // No config.json is read: XDG_CONFIG_HOME points at an empty directory.
  env = { XDG_CONFIG_HOME: f.dir, XDG_STATE_HOME: join(f.dir, 'state'), SECRETS_STORE_URL: f.vault.url, STORE_ORCH_SA_TOKEN_PATH: join(f.dir, 'absent') };
});
afterAll(async () => {
  await f?.close();
});

async function run(argv: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const io = memoryIo();
  const { lines: logs, logger } = captureLogger();
  const code = await runSecretManager(argv, { io, env: { ...env, ...extraEnv }, logger });
  return { code, out: io.lines.join('\n'), err: io.errors.join('\n'), logs: logs.join('\n') };
}

describe('secret-manager get (in-process)', () => {
  it('reads with OIDC auth, the IdP token from --id-token-file, and prints the object as JSON', async () => {
    const result = await run(['--backend', 'store', '--store-auth', 'oidc', '--id-token-file', aliceFile, 'get', 'users/alice/api']);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(result.out)).toEqual({ key: f.values.alice });
    expect(f.vault.logins().at(-1)?.path).toBe('/v1/auth/jwt/login');
  });

  it('takes options after the subcommand, the token from TOOLGRAPH_ID_TOKEN, a custom auth mount, and --field', async () => {
    const result = await run(['get', 'team/db', '--field', 'password', '--backend', 'store', '--store-auth-mount', 'corp-sso', '--store-role', 'default'], { TOOLGRAPH_ID_TOKEN: alice });
    expect(result).toMatchObject({ code: 0, out: f.values.team, err: '' });
    expect(f.vault.logins().at(-1)?.path).toBe('/v1/auth/corp-sso/login');
  });

  it('uses AppRole from the environment, with the path prefix', async () => {
    const result = await run(['get', 'db', '--store-path-prefix', 'apps/toolgraph', '--field', 'password'], { SECRETS_BACKEND: 'store', STORE_ROLE_ID: f.roleId, STORE_SECRET_ID: f.secretId });
    expect(result).toMatchObject({ code: 0, out: f.values.prefixed });
  });

  it('without a user token for OIDC auth, prints the spec\'s message and where a token can come from', async () => {
    const result = await run(['--backend', 'store', '--store-auth', 'oidc', 'get', 'team/db']);
    expect(result.code).toBe(1);
    expect(result.err).toBe([
      'secret-manager: TG_NO_USER_TOKEN: No user token available for delegation',
      'secret-manager: OIDC/JWT store auth needs the caller\'s IdP token: give --id-token-file FILE, TOOLGRAPH_ID_TOKEN_FILE or TOOLGRAPH_ID_TOKEN, or sign in with `secret-manager login`',
    ].join('\n'));
  });

  it('names missing fields without printing values, and reports not-found and refusals', async () => {
    const token = { SECRETS_BACKEND: 'store', STORE_AUTH_METHOD: 'token', STORE_TOKEN: f.staticToken };
    const field = await run(['get', 'team/db', '--field', 'nope'], token);
    expect(field).toMatchObject({ code: 1, out: '', err: 'secret-manager: TG_SECRET_NOT_FOUND: secret "team/db" has no field "nope"; its fields are "password", "user"' });
    const missing = await run(['get', 'team/none'], token);
    expect(missing).toMatchObject({ code: 1, err: 'secret-manager: TG_SECRET_NOT_FOUND: no secret under key "team/none" (store path secret/data/team/none)' });
    const denied = await run(['get', 'ops/deploy'], token);
    expect(denied.err).toMatch(/^secret-manager: TG_FORBIDDEN: /);
    const badKey = await run(['get', 'team/../ops/deploy'], token);
    expect(badKey.err).toMatch(/^secret-manager: TG_BAD_REQUEST: secret key "team\/\.\.\/ops\/deploy"/);
    for (const r of [field, missing, denied, badKey]) expect(`${r.out}${r.err}${r.logs}`).not.toContain(f.values.team);
  });

  it('the in-memory backend says it is empty, and serves a seed file', async () => {
    const empty = await run(['get', 'team/db']);
    expect(empty).toMatchObject({ code: 1, err: 'secret-manager: TG_SECRET_NOT_FOUND: no secret under key "team/db": the in-memory backend is empty (it starts empty in every process; seed it with --secrets-file FILE or TOOLGRAPH_SECRETS_FILE, or use --backend store)' });
    const seed = join(f.dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ 'team/db': { password: 'local-dev' }, 'plain': 'just a string' }));
    expect(await run(['--secrets-file', seed, 'get', 'team/db', '--field', 'password'])).toMatchObject({ code: 0, out: 'local-dev' });
    expect(await run(['get', 'plain'], { TOOLGRAPH_SECRETS_FILE: seed })).toMatchObject({ code: 0, out: 'just a string' });
  });

  it('a bad setting exits 78 naming it; --help lists the spec\'s options and the token sources', async () => {
    const bad = await run(['--store-auth', 'kerberos', 'get', 'x']);
    expect(bad).toMatchObject({ code: 78, err: 'secret-manager: TG_CONFIG_INVALID: --store-auth from flag: expected one of auto, oidc, approle, token, orchestrator, got "kerberos"' });
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const text of ['--backend', '--store-auth ', '--store-auth-mount', '--store-role', '--store-path-prefix', '--id-token-file', 'TOOLGRAPH_ID_TOKEN', '--secrets-file', 'get [options] <key>']) {
      expect(help.out).toContain(text);
    }
    expect(help.out).not.toContain('--graphql-addr');
  });
});

describe('secret-manager login: device-flow sign-in for OIDC/JWT store auth', () => {
  it('prints where to confirm the code, stores the session (0600), and later gets log in to the store with it', async () => {
    f.idp.setInteractiveUser({ sub: 'alice', email: 'alice@example.test' });
    const stateHome = join(f.dir, 'login-state');
    const lines: string[] = [];
    const errors: string[] = [];
    let confirmed: Promise<unknown> | undefined;
    const io: CliIo = {
      out: (line) => {
        lines.push(line);
        const complete = /^\(or open (\S+), which has the code filled in\)$/.exec(line);
        if (complete) confirmed = new Browser().visit(complete[1]!);
      },
      err: (line) => errors.push(line),
    };
    const oidc = { OIDC_CONFIG_URL: f.idp.discoveryUrl, OIDC_CLIENT_ID: f.idp.clientId, OIDC_CLIENT_SECRET: f.idp.clientSecret, XDG_STATE_HOME: stateHome };
    const code = await runSecretManager(['login', '--audience', AUDIENCE, '--scope', 'openid offline_access'], { io, env: { ...env, ...oidc }, logger: captureLogger().logger });
    await confirmed;
    const path = join(stateHome, 'toolgraph', 'tokens', 'secret-manager.json');
    expect({ code, errors }).toEqual({ code: 0, errors: [] });
    expect(lines[0]).toMatch(/^To sign secret-manager in, open http:\/\/127\.0\.0\.1:\d+\/device in any browser and enter the code [A-Z]{4}-[A-Z]{4}$/);
    expect(lines.at(-1)).toBe(`signed in secret-manager: token set stored in ${path} (mode 0600; access token valid 600 s, refreshable)`);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const loginsBefore = f.vault.logins().length;
    const result = await run(['--backend', 'store', '--store-auth', 'oidc', 'get', 'users/alice/api', '--field', 'key'], oidc);
    expect(result).toMatchObject({ code: 0, out: f.values.alice, err: '' });
    expect(f.vault.logins().slice(loginsBefore).map((c) => [c.path, c.status])).toEqual([['/v1/auth/jwt/login', 200]]);
    const session = JSON.parse(readFileSync(path, 'utf8')) as { access_token: string; refresh_token: string };
    expect(`${result.out}${result.err}${result.logs}${lines.join('\n')}`).not.toContain(session.access_token);
    expect(result.logs).not.toContain(session.refresh_token);
  });

  it('without the IdP settings it exits 78 naming them', async () => {
    const result = await run(['login']);
    expect(result).toMatchObject({ code: 78, err: 'secret-manager: TG_CONFIG_INVALID: signing in by the device flow needs the IdP and the client: set OIDC_CONFIG_URL (--oidc-config-url) and OIDC_CLIENT_ID (--oidc-client-id), and OIDC_CLIENT_SECRET for a confidential client' });
  });
});

describe('an unreachable store', () => {
  it('names SECRETS_STORE_URL in its error', async () => {
    const port = await closedPort();
    const result = await run(['get', 'team/db'], { SECRETS_BACKEND: 'store', SECRETS_STORE_URL: `http://127.0.0.1:${port}`, STORE_AUTH_METHOD: 'token', STORE_TOKEN: f.staticToken });
    expect(result).toMatchObject({ code: 1, err: `secret-manager: TG_SECRETS_STORE_UNAVAILABLE: secrets store at http://127.0.0.1:${port} (SECRETS_STORE_URL) could not be reached: ECONNREFUSED` });
  });
});

describe('secret-manager as a child process', () => {
  it('prints the secret on stdout; stderr logs carry no secret, store token or JWT', async () => {
    const child = spawn(process.execPath, ['src/cli/secret-manager.ts', 'get', 'team/db'], {
      cwd: process.cwd(),
      env: { ...process.env, ...env, SECRETS_BACKEND: 'store', TOOLGRAPH_ID_TOKEN_FILE: aliceFile, STORE_ROLE_ID: f.roleId, STORE_SECRET_ID: f.secretId, LOG_LEVEL: 'trace' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ password: f.values.team, user: 'app' });
    expect(stderr).toContain('secrets store login');
    for (const value of [f.values.team, alice, f.secretId]) expect(stderr).not.toContain(value);
    expect(stderr).not.toMatch(/hvs\./);
  });
});
