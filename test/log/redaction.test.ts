import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTINGS, resolveConfig } from '../../src/config/index.ts';
import { startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { REDACTED, REDACT_KEYS, forgetSecrets, scrubString } from '../../src/log/index.ts';
import { StoreSecretsBackend } from '../../src/secrets/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { startVaultDouble } from '../support/vault-double.ts';
import { ToolgraphError } from '../../src/errors/index.ts';


// A JWT-shaped token built at run time, so no credential-looking literal lives in the repo.
const token = ['eyJhbGciOiJSUzI1NiJ9', Buffer.from(JSON.stringify({ sub: 'alice', scope: 'kg:read' })).toString('base64url'), 'c2lnbmF0dXJlLWJ5dGVz'].join('.');

let host: RunningHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('logs never contain bearer tokens', () => {
  it('scrubs bearer values and JWTs from free text', () => {
    expect(scrubString(`Authorization: Bearer ${token}`)).toBe('Authorization: Bearer [REDACTED]');
    expect(scrubString(`bearer opaque-token_123`)).toBe('bearer [REDACTED]');
    expect(scrubString(`token=${token};`)).toBe('token=[REDACTED];');
    expect(scrubString('nothing to hide')).toBe('nothing to hide');
  });

  it('a request carrying a bearer token, logged every way a handler might, leaves no trace of it', async () => {
    const { lines, logger } = captureLogger();
    const service: HttpService = {
      name: 'echo',
      prefixes: ['/echo'],
      entryPath: '/echo',
      handle(req) {
        logger.info({ headers: req.headers }, 'request headers');
        logger.info({ req: { headers: req.headers } }, 'nested request');
        logger.info({ authorization: req.headers.authorization, token: token, access_token: token }, 'fields');
        logger.warn(`header was ${req.headers.authorization ?? ''}`);
        logger.error({ err: new Error(`upstream refused ${token}`), details: { note: `Bearer ${token}` } }, 'failure');
        throw new ToolgraphError('TG_FORBIDDEN', 'no');
      },
    };
    host = await startHost({ services: [service], logger, host: '127.0.0.1', port: 0 });
    const response = await fetch(`${host.origin}/echo`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(403);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const output = lines.join('\n');
    expect(output).not.toContain(token);
    expect(output).not.toContain(token.split('.')[1]!);
    expect(output).toContain('[REDACTED]');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});

/** An opaque credential as Vault and most APIs issue them: nothing about its shape says "secret". */
function opaque(prefix = 'hvs.'): string {
  return `${prefix}${randomBytes(18).toString('base64url')}`;
}

function logged(write: (logger: ReturnType<typeof captureLogger>['logger']) => void): string {
  const { lines, logger } = captureLogger();
  write(logger);
  for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  return lines.join('\n');
}

afterEach(() => forgetSecrets());

describe('redaction by key, at any depth, whatever the value looks like', () => {
  const shapes: [string, (key: string, secret: string) => Record<string, unknown>][] = [
    ['top level', (key, secret) => ({ [key]: secret })],
    ['one level down', (key, secret) => ({ headers: { [key]: secret } })],
    ['two levels down', (key, secret) => ({ response: { auth: { [key]: secret } } })],
    ['three levels down', (key, secret) => ({ data: { data: { nested: { [key]: secret } } } })],
    ['in a list', (key, secret) => ({ items: [{ [key]: secret }] })],
    ['upper case', (key, secret) => ({ headers: { [key.toUpperCase()]: secret } })],
  ];
  const cases = REDACT_KEYS.flatMap((key) => shapes.map(([where, build]) => [key, where, build] as const));

  it.each(cases)('%s, %s', (key, _where, build) => {
    const secret = opaque();
    const output = logged((logger) => logger.info(build(key, secret), 'event'));
    expect(output).not.toContain(secret);
    expect(output).toContain(REDACTED);
  });

  it('the leaks the issue found: x-vault-token, response.auth.client_token, data.data.password', () => {
    const token = opaque();
    const password = opaque('pw-');
    const output = logged((logger) => {
      logger.info({ headers: { 'x-vault-token': token } }, 'store request');
      logger.info({ response: { auth: { client_token: token, lease_duration: 60 } } }, 'store login');
      logger.info({ data: { data: { password, user: 'app' } } }, 'secret read');
    });
    expect(output).not.toContain(token);
    expect(output).not.toContain(password);
    expect(output).toContain('"lease_duration":60');
    expect(output).toContain('"user":"app"');
  });

  it('past the depth it checks, nothing is shown at all', () => {
    let deep: Record<string, unknown> = { note: opaque() };
    for (let i = 0; i < 30; i++) deep = { next: deep };
    const secret = (function find(value: Record<string, unknown>): string { return typeof value['note'] === 'string' ? value['note'] : find(value['next'] as Record<string, unknown>); })(deep);
    expect(logged((logger) => logger.info(deep, 'deep'))).not.toContain(secret);
  });
});

describe('redaction of known secret values, in free text and error messages', () => {
  const secretSettings = Object.entries(SETTINGS as Record<string, { env?: string; secret?: string }>).filter(([, def]) => def.secret !== undefined);

  it.each(secretSettings.map(([name, def]) => [name, def.env!, def.secret!]))('%s (%s, %s)', (_name, env, kind) => {
    const secret = opaque('s3cr3t-');
    const value = kind === 'url-password' ? `postgresql://app:${secret}@db.internal:5432/toolgraph` : secret;
    resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), [env]: value, ...(env === 'DATABASE_URL' ? { TOOLGRAPH_PERSISTENCE: 'postgres' } : {}) } });
    const output = logged((logger) => {
      logger.error({ err: new Error(`store answered 403 for ${secret}`) }, 'failed');
      logger.warn(`retrying with ${secret}`);
      logger.info({ note: `value=${secret};`, nested: { text: [secret] } }, 'free text');
    });
    expect(output).not.toContain(secret);
    expect(output.split(REDACTED).length - 1).toBeGreaterThanOrEqual(4);
  });

  it('a store token obtained at run time (AppRole login) is redacted from later error messages', async () => {
    const vault = await startVaultDouble();
    try {
      vault.setPolicy('read', ['secret/data/*']);
      const secretId = opaque('sid-');
      vault.setAppRole('toolgraph', { roleId: 'role-1', secretId, policies: ['read'] });
      vault.putSecret('secret', 'team/db', { user: 'app' });
      const issued: string[] = [];
      // The real peer answers; the wrapper only watches which token it hands out.
      const watching: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).endsWith('/auth/approle/login')) issued.push(((await response.clone().json()) as { auth: { client_token: string } }).auth.client_token);
        return response;
      };
      const backend = new StoreSecretsBackend({
        url: vault.url, mount: 'secret', authMethod: 'approle', authMount: 'jwt', role: 'default', roleId: 'role-1',
        secretId, saTokenPath: '/nonexistent', fetch: watching,
      });
      expect(await backend.get('team/db')).toEqual({ user: 'app' });
      expect(issued).toHaveLength(1);
      const output = logged((logger) => logger.error({ err: new Error(`downstream echoed token ${issued[0]} back`) }, 'failed'));
      expect(output).not.toContain(issued[0]!);
    } finally {
      await vault.close();
    }
  });
});

describe('logged errors keep their type', () => {
  it.each([
    ['TypeError', () => new TypeError('boom')],
    ['RangeError', () => new RangeError('boom')],
    ['ToolgraphError', () => new ToolgraphError('TG_FORBIDDEN', 'no', { details: { key: 'team/db' } })],
    ['AggregateError', () => new AggregateError([new Error('a')], 'many')],
  ])('%s', (type, make) => {
    const output = logged((logger) => {
      logger.error({ err: make() }, 'under err');
      logger.error(make());
      logger.error({ error: make() }, 'under another key');
    });
    const lines = output.split('\n').map((line) => JSON.parse(line) as Record<string, { type?: string }>);
    expect(lines[0]!['err']!.type).toBe(type);
    expect(lines[1]!['err']!.type).toBe(type);
    expect(lines[2]!['error']!.type).toBe(type);
    if (type === 'ToolgraphError') expect(lines[0]!['err']).toMatchObject({ code: 'TG_FORBIDDEN', details: { key: 'team/db' } });
  });
});

describe('a library object hung on an error shows only its class (issue 28, F8)', () => {
  it('pg-pool\'s err.client: the class name, never its cancel key, user or statement text; plain fields stay', () => {
    class Client {
      readonly processID = 4242;
      readonly secretKey = 1803742246;
      readonly connectionParameters = { user: 'app', database: 'prod' };
      readonly parsedStatements = { tg_notify: 'SELECT pg_notify($1, note)' };
    }
    const error = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', client: new Client(), at: { where: 'pool' } });
    const output = logged((logger) => logger.warn({ err: error }, 'an idle PostgreSQL connection failed'));
    const line = JSON.parse(output) as { err: Record<string, unknown> };
    expect(line.err).toMatchObject({ type: 'Error', code: '57P01', client: '[Client]', at: { where: 'pool' } });
    for (const internal of ['1803742246', '4242', 'prod', 'pg_notify']) expect(output).not.toContain(internal);
  });
});
