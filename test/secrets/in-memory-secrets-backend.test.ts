import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemorySecretsBackend, createSecretsBackend, readSecretsSeedFile } from '../../src/secrets/index.ts';
import { resolveConfig } from '../../src/config/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgraph-inmemory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('InMemorySecretsBackend', () => {
  it('returns seeded strings and objects, as copies', async () => {
    const backend = new InMemorySecretsBackend({ 'team/db': { password: 'p' }, token: 'plain' });
    expect(await backend.get('token')).toBe('plain');
    const value = (await backend.get('team/db')) as Record<string, unknown>;
    value['password'] = 'changed';
    expect(await backend.get('team/db')).toEqual({ password: 'p' });
    backend.set('new', { a: 1 });
    expect(await backend.get('new')).toEqual({ a: 1 });
  });

  it('says when it is empty and how to seed it, and refuses bad keys', async () => {
    const empty = new InMemorySecretsBackend({}, { seedHint: 'seed it with --secrets-file FILE' });
    await expect(empty.get('x')).rejects.toMatchObject({ code: 'TG_SECRET_NOT_FOUND', message: 'no secret under key "x": the in-memory backend is empty (seed it with --secrets-file FILE)' });
    const one = new InMemorySecretsBackend({ a: 'b' });
    await expect(one.get('x')).rejects.toMatchObject({ message: 'no secret under key "x": the in-memory backend holds 1 other key(s)' });
    await expect(one.get('a/../b')).rejects.toMatchObject({ code: 'TG_BAD_REQUEST' });
    expect(() => new InMemorySecretsBackend({ '': 'x' })).toThrow(expect.objectContaining({ code: 'TG_BAD_REQUEST' }));
  });

  it('reads a seed file and refuses bad ones without echoing values', () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ 'a/b': { k: 'v' }, c: 'd' }));
    expect(readSecretsSeedFile(good)).toEqual({ 'a/b': { k: 'v' }, c: 'd' });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ n: 12345 }));
    expect(() => readSecretsSeedFile(bad)).toThrow(`secrets seed file ${bad}: key "n": expected a string or an object, got number`);
    writeFileSync(bad, '[1]');
    expect(() => readSecretsSeedFile(bad)).toThrow(expect.objectContaining({ code: 'TG_CONFIG_INVALID', message: expect.stringContaining('got an array') }));
    expect(() => readSecretsSeedFile(join(dir, 'none.json'))).toThrow(expect.objectContaining({ code: 'TG_CONFIG_INVALID' }));
  });

  it('createSecretsBackend picks the backend SECRETS_BACKEND names', () => {
    const env = { XDG_CONFIG_HOME: dir };
    expect(createSecretsBackend(resolveConfig({ env }).values).kind).toBe('inmemory');
    expect(createSecretsBackend(resolveConfig({ env: { ...env, SECRETS_BACKEND: 'store', STORE_PATH_PREFIX: 'a/b' } }).values).kind).toBe('store');
    expect(() => createSecretsBackend(resolveConfig({ env: { ...env, SECRETS_BACKEND: 'store', STORE_PATH_PREFIX: 'a/../b' } }).values))
      .toThrow(expect.objectContaining({ code: 'TG_CONFIG_INVALID', message: 'STORE_PATH_PREFIX: expected path segments separated by "/" with no empty, "." or ".." segment; got a ".." segment in "a/../b"' }));
  });
});
