import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.ts';
import { whoami } from '../support/downstream-api.ts';
import { API, startDelegationFixture, type DelegationFixture } from '../auth/delegation-fixture.ts';

let f: DelegationFixture;
let home: string;
beforeAll(async () => {
  f = await startDelegationFixture();
  home = mkdtempSync(join(tmpdir(), 'toolgraph-auth-login-'));
});
afterAll(async () => {
  await f?.close();
  rmSync(home, { recursive: true, force: true });
});

interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first stdout line matching `pattern`. */
  line(pattern: RegExp): Promise<string>;
}

function toolgraph(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['src/cli/toolgraph.ts', ...args], {
    cwd: process.cwd(),
    // A clean environment: no config.json, state under the test's own XDG dirs.
    env: { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), ...env },
  });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of [...waiters]) {
      const line = stdout.split('\n').find((l) => waiter.pattern.test(l));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    child, stdout: () => stdout, stderr: () => stderr,
    line: (pattern) => new Promise((resolve) => {
      const seen = stdout.split('\n').find((l) => pattern.test(l));
      if (seen !== undefined) resolve(seen);
      else waiters.push({ pattern, resolve });
    }),
  };
}

describe('toolgraph auth login <agent> (child process)', () => {
  it('loopback flow: prints the URL and the ssh -L forwarding, the browser consents, the code is exchanged and the token set seeded for the agent', async () => {
    const run = toolgraph(['auth', 'login', 'jira', '--callback-port', '0', '--scope', 'openid api offline_access', '--audience', API], {
      OIDC_CONFIG_URL: f.idp.discoveryUrl, OIDC_CLIENT_ID: f.idp.threeLeggedClient.clientId, OIDC_CLIENT_SECRET: f.idp.threeLeggedClient.clientSecret,
    });
    const url = (await run.line(/^ {2}http:\/\/127\.0\.0\.1:\d+\/auth\?/)).trim();
    const visit = await new Browser().visit(url);
    expect(visit.body).toContain('toolgraph: agent jira is signed in. You can close this tab.');
    const [code] = (await once(run.child, 'exit')) as [number];
    expect({ code, stderr: run.stderr() }).toEqual({ code: 0, stderr: '' });
    const port = /redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A(\d+)%2Fcallback/.exec(url)![1];
    const path = join(home, 'state', 'toolgraph', 'tokens', 'jira.json');
    expect(run.stdout()).toContain(`The browser is sent back to http://127.0.0.1:${port}/callback. If this machine is remote, forward that port from the machine running the browser first:\n\n  ssh -L ${port}:127.0.0.1:${port} user@server\n`);
    expect(run.stdout().trimEnd().split('\n').at(-1)).toBe(`signed in agent jira: token set stored in ${path} (mode 0600; access token valid 600 s, refreshable)`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(path, 'utf8')) as { access_token: string; refresh_token: string };
    expect(run.stdout()).not.toContain(stored.access_token);
    expect(run.stdout()).not.toContain(stored.refresh_token);

    // The agent's tools read what the sign-in seeded.
    const downstream = await f.open({ enableDelegation: false, stateDir: join(home, 'state', 'toolgraph') });
    const credential = await downstream.resolve({ name: 'jira', pattern: 'three-legged', provider: { configUrl: f.idp.discoveryUrl, clientId: f.idp.threeLeggedClient.clientId, clientSecret: f.idp.threeLeggedClient.clientSecret } }, { context: null });
    expect(credential.source).toBe('three-legged');
    expect((await whoami(f.api, credential.headers)).body).toMatchObject({ sub: 'interactive-user', aud: API });
  });

  it('--device: prints the code and where to enter it, polls until the browser confirmed, and stores the hybrid agent\'s token set', async () => {
    const run = toolgraph(['auth', 'login', 'vendor', '--device', '--scope', 'openid api offline_access', '--audience', API], {
      OIDC_CONFIG_URL: f.idp.discoveryUrl, OIDC_CLIENT_ID: f.idp.clientId, OIDC_CLIENT_SECRET: f.idp.clientSecret,
    });
    const prompt = await run.line(/^To sign agent vendor in, open /);
    expect(prompt).toMatch(/^To sign agent vendor in, open http:\/\/127\.0\.0\.1:\d+\/device in any browser and enter the code [A-Z]{4}-[A-Z]{4}$/);
    const complete = /^\(or open (\S+), which has the code filled in\)$/.exec(await run.line(/^\(or open /))![1]!;
    await new Browser().visit(complete);
    const [code] = (await once(run.child, 'exit')) as [number];
    expect({ code, stderr: run.stderr() }).toEqual({ code: 0, stderr: '' });
    const downstream = await f.open({ enableDelegation: false, stateDir: join(home, 'state', 'toolgraph') });
    const credential = await downstream.resolve({ name: 'vendor', pattern: 'hybrid', audience: API }, { context: null });
    expect(credential.source).toBe('device-flow');
    expect((await whoami(f.api, credential.headers)).status).toBe(200);
  });

  it('refuses an agent name no served agent can have (the token set would belong to no agent)', async () => {
    for (const name of ['Jira.Cloud', 'secrets']) {
      const run = toolgraph(['auth', 'login', name], { OIDC_CONFIG_URL: f.idp.discoveryUrl, OIDC_CLIENT_ID: f.idp.threeLeggedClient.clientId });
      const [code] = (await once(run.child, 'exit')) as [number];
      expect(code).toBe(78);
      expect(run.stderr()).toBe(`toolgraph: TG_CONFIG_INVALID: agent name: expected a name the tool server's agents can have (^[a-z][a-z0-9_]{0,63}$, not schemas or secrets), got "${name}"\n`);
    }
  });

  it('without a client or provider it exits 78 naming the setting', async () => {
    const run = toolgraph(['auth', 'login', 'jira'], {});
    const [code] = (await once(run.child, 'exit')) as [number];
    expect(code).toBe(78);
    expect(run.stderr()).toBe('toolgraph: TG_CONFIG_INVALID: auth login needs the OAuth client: set OIDC_CLIENT_ID (--oidc-client-id or config key oidc_client_id), and OIDC_CLIENT_SECRET for a confidential client\n');
  });
});
