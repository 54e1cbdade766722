import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCommands } from '../support/console-commands.ts';
import { until } from '../support/until.ts';

const root = new URL('../../', import.meta.url);
const texts = ['README.md', ...readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
  .map((name) => [name, readFileSync(new URL(name, root), 'utf8')] as const);
const readme = texts[0]![1];

let tmp: string;
let idp: ChildProcess;
let out = '';
const values = new Map<string, string>();

/** Runs a shell-free command line as npm does for the README (`$tmp` is this test's directory) and waits for its exports. */
async function startIdp(commandLine: string): Promise<{ child: ChildProcess; output: () => string }> {
  const [command, ...args] = commandLine.replaceAll('$tmp', tmp).split(/\s+/);
  expect(command).toBe('npm');
  const child = spawn(command!, args, { cwd: fileURLToPath(root), stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => { err += chunk.toString('utf8'); });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (/^export GRAPHQL_ONLY=/m.test(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${commandLine} exited (${code}) before printing its exports:\n${text}${err}`)));
  });
  return { child, output: () => text };
}

/** SIGTERM to the npm process alone (as a supervisor sends it), and wait until the IdP is gone. */
async function stop(child: ChildProcess, discoveryUrl: string | undefined): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
  if (discoveryUrl) {
    await until('the IdP stops answering', () => fetch(discoveryUrl).then(() => false, () => true), 5_000);
  }
}

/** `npm run dev:idp -- --write-env $tmp/idp.env`, exactly as the README says to run it. */
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'tg-dev-idp-'));
  const documented = /`(npm run dev:idp -- --write-env \$tmp\/idp\.env)`/.exec(readme);
  expect(documented, 'the README shows `npm run dev:idp -- --write-env $tmp/idp.env`').not.toBeNull();
  const started = await startIdp(documented![1]!);
  idp = started.child;
  out = started.output();
  for (const m of out.matchAll(/^export ([A-Z_]+)=(\S+)$/gm)) values.set(m[1]!, m[2]!);
});
afterAll(async () => {
  if (idp) await stop(idp, values.get('OIDC_CONFIG_URL'));
  rmSync(tmp, { recursive: true, force: true });
});

describe('npm run dev:idp -- --write-env FILE', () => {
  it('writes the exports it prints to FILE, mode 0600, for `. FILE`', () => {
    const file = join(tmp, 'idp.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = readFileSync(file, 'utf8');
    expect(written).toMatch(/^export GRAPHQL_ONLY=/m);
    expect(out).toContain(written);
  });

  it('the IdP named in FILE answers', async () => {
    const url = /^export OIDC_CONFIG_URL=(\S+)$/m.exec(readFileSync(join(tmp, 'idp.env'), 'utf8'))![1]!;
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ issuer: expect.any(String), jwks_uri: expect.any(String) });
  });

  it('takes the old spelling --env-file FILE too (Node 22 would take it as its own flag and stop)', async () => {
    const { child, output } = await startIdp('npm run -s dev:idp -- --env-file $tmp/old.env');
    try {
      expect(readFileSync(join(tmp, 'old.env'), 'utf8')).toMatch(/^export OIDC_CONFIG_URL=/m);
    } finally {
      await stop(child, /^export OIDC_CONFIG_URL=(\S+)$/m.exec(output())?.[1]);
    }
  });
});

describe('npm run dev:idp defines what the docs\' sessions use', () => {
  it.each(texts)('every $VARIABLE a console command of %s uses is exported by dev:idp or set by an earlier command', (_name, text) => {
    const assigned = new Set<string>(['PWD', 'HOME', 'PATH']);
    for (const command of consoleCommands(text)) {
      const unquoted = command.replace(/'[^']*'/g, "''");
      for (const m of unquoted.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) {
        expect(assigned.has(m[1]!) || values.has(m[1]!), `${command.slice(0, 100)} uses $${m[1]}, which nothing defines`).toBe(true);
      }
      for (const m of command.matchAll(/(?:^|;|&&)\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)=(?!\S*\s+\S)/g)) assigned.add(m[1]!);
      // `X=$(...)` and `X='...'` alone on a line set a shell variable.
      const alone = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=(\$\(.*\)|'[^']*'|"[^"]*"|\S+)$/.exec(command.replace(/\s+#\s.*$/, '').trim());
      if (alone) assigned.add(alone[1]!);
    }
  });

  it('prints tokens with the scopes and groups the README says, signed by the IdP it names, for TOKEN_AUDIENCE', async () => {
    const discovery = await (await fetch(values.get('OIDC_CONFIG_URL')!)).json() as { issuer: string; jwks_uri: string };
    const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const claims = async (name: string) => (await jwtVerify(values.get(name)!, keys, { issuer: discovery.issuer, audience: values.get('TOKEN_AUDIENCE')! })).payload;
    expect(values.get('TOKEN_AUDIENCE')).toBe('http://127.0.0.1:4000');
    expect(await claims('ADMIN')).toMatchObject({ sub: 'admin', scope: 'kg:admin' });
    expect(await claims('READER')).toMatchObject({ sub: 'reader', scope: 'kg:read', groups: ['analysts', 'person-001', 'person-003'] });
    expect(await claims('OTHER')).toMatchObject({ sub: 'other', scope: 'kg:read', groups: ['sales'] });
    expect(await claims('GRAPHQL_ONLY')).toMatchObject({ sub: 'graphql-only', scope: 'query:graphql' });
    const { exp, iat } = await claims('READER');
    expect(exp! - iat!).toBe(8 * 3600);
  });

  it('prints the clients the sign-in sessions name', () => {
    expect(values.get('OIDC_CLIENT_ID')).toBe('toolgraph-proxy');
    expect(values.get('OIDC_CLIENT_SECRET')).toMatch(/^proxy-/);
    expect(values.get('TEST_CLIENT_ID')).toBe('toolgraph-test-client');
    expect(values.get('VENDOR_APP_CLIENT_ID')).toBe('toolgraph-test-vendor-app');
    expect(values.get('TEST_CLIENT_SECRET')).toBeTruthy();
    expect(values.get('VENDOR_APP_CLIENT_SECRET')).toBeTruthy();
  });
});
