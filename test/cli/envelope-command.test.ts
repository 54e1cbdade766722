import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportPKCS8, generateKeyPair } from 'jose';
import { runProgram } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { loadSignerKeys, verifyEnvelope } from '../../src/graph/carrier/index.ts';

function memoryIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

const QUERY = 'subscription { Person(first: 5) { id name } }';

describe('toolgraph envelope', () => {
  it('keygen writes a private JWK and a JWKS; sign prints headers the carrier verifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-envelope-'));
    const io = memoryIo();
    expect(await runProgram(['envelope', 'keygen', '--private', join(dir, 'signer.jwk'), '--jwks', join(dir, 'jwks.json'), '--kid', 'k1'], io)).toBe(0);
    expect(io.lines[0]).toBe(`wrote the private key ${join(dir, 'signer.jwk')} and added kid k1 (EdDSA) to ${join(dir, 'jwks.json')}`);
    expect(statSync(join(dir, 'signer.jwk')).mode & 0o777).toBe(0o600);
    const jwks = JSON.parse(readFileSync(join(dir, 'jwks.json'), 'utf8')) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty('d');

    const signed = memoryIo();
    expect(await runProgram(['envelope', 'sign', '--key', join(dir, 'signer.jwk'), '--graph', 'demo', '--query', QUERY,
      '--subject', 'ada', '--scope', 'kg:read', '--group', 'red', '--id', '18446744073709551615', '--variables', '{"n": 1}'], signed)).toBe(0);
    expect(signed.lines).toHaveLength(2);
    expect(signed.lines[0]).toMatch(/^Authorization: Bearer tgsse1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(signed.lines[1]).toBe('X-Service-Request-Id: 18446744073709551615');
    const verified = await verifyEnvelope(signed.lines[0]!.slice('Authorization: '.length), await loadSignerKeys(join(dir, 'jwks.json')), Math.floor(Date.now() / 1000));
    expect(verified.request.id).toBe(18446744073709551615n);
    expect(verified.request.graph).toBe('demo');
    expect(verified.query).toBe(QUERY);
    expect(verified.variables).toEqual({ n: 1 });
    expect(verified.principal).toEqual({ subject: 'ada', scopes: ['kg:read'], groups: ['red'] });

    // A second key joins the same JWKS (rotation); the private key file is never overwritten.
    expect(await runProgram(['envelope', 'keygen', '--private', join(dir, 'signer2.jwk'), '--jwks', join(dir, 'jwks.json'), '--alg', 'ES256'], memoryIo())).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'jwks.json'), 'utf8')) as { keys: unknown[] }).keys).toHaveLength(2);
    const again = memoryIo();
    expect(await runProgram(['envelope', 'keygen', '--private', join(dir, 'signer.jwk'), '--jwks', join(dir, 'other.json')], again)).toBe(1);
    expect(again.errors.join('\n')).toContain('it must not exist yet');
  });

  it('signs with a PKCS#8 PEM key and --alg, and prints JSON with --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-envelope-'));
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    writeFileSync(join(dir, 'key.pem'), await exportPKCS8(privateKey));
    const io = memoryIo();
    expect(await runProgram(['envelope', 'sign', '--key', join(dir, 'key.pem'), '--alg', 'ES256', '--kid', 'pem-1', '--graph', 'demo', '--query', QUERY, '--subject', 'ada', '--json'], io)).toBe(0);
    const printed = JSON.parse(io.lines.join('\n')) as { headers: Record<string, string>; path: string };
    expect(printed.path).toBe(`/graphql/subscribe?graph=demo&query=${encodeURIComponent(QUERY)}`);
    expect(printed.headers['x-service-request-id']).toMatch(/^[1-9]\d*$/);
    const header = JSON.parse(Buffer.from(printed.headers['authorization']!.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(header).toEqual({ alg: 'ES256', typ: 'tgsse+jws', kid: 'pem-1' });

    const noAlg = memoryIo();
    expect(await runProgram(['envelope', 'sign', '--key', join(dir, 'key.pem'), '--graph', 'demo', '--query', QUERY, '--subject', 'ada'], noAlg)).toBe(1);
    expect(noAlg.errors.join('\n')).toContain('is a PEM key: give --alg');
  });
});
