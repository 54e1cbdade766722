import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCommands } from '../support/console-commands.ts';

const root = new URL('../../', import.meta.url);
const texts = ['README.md', ...readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
  .map((name) => [name, readFileSync(new URL(name, root), 'utf8')] as const);

let idp: ChildProcess;
const values = new Map<string, string>();

/** `npm run dev:idp`, as the README says to run it (the script npm runs, on this Node 22). */
beforeAll(async () => {
  const script = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).scripts['dev:idp'] as string;
  expect(script).toBe('node scripts/dev/test-idp.ts');
  idp = spawn(process.execPath, ['scripts/dev/test-idp.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    idp.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (/^export GRAPHQL_ONLY=/m.test(out)) resolve();
    });
    idp.once('exit', (code) => reject(new Error(`dev:idp exited (${code}) before printing its exports:\n${out}`)));
  });
  for (const m of out.matchAll(/^export ([A-Z_]+)=(\S+)$/gm)) values.set(m[1]!, m[2]!);
});
afterAll(() => {
  idp?.kill('SIGTERM');
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
