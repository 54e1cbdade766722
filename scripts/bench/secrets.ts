// Secrets benchmark: node scripts/bench/secrets.ts [--out FILE]
// Reads per second of StoreSecretsBackend.get (OIDC/JWT store auth, the store token cached after the
// first login) against plain `fetch` of the same KV v2 path with the same store token, on the same
// Vault-compatible double, both with CONCURRENCY loops; sides alternate (A B A B …) for ROUNDS rounds.
// Then 1,000 concurrent reads by one user on a fresh backend: how many logins the store saw.
// One process (double, IdP and load); the double verifies JWT logins against the real test IdP.
import { writeFileSync } from 'node:fs';
import { StoreSecretsBackend } from '../../src/secrets/index.ts';
import { startIdp } from '../../test/support/idp.ts';
import { startVaultDouble } from '../../test/support/vault-double.ts';
import { median, printTable, throughput } from './bench-stats.ts';

const args = process.argv.slice(2);
const ROUNDS = 5;
const MS_PER_SIDE = 1000;
const CONCURRENCY = 16;
const AUDIENCE = 'https://store.bench.toolgraph.test';

const idp = await startIdp({ defaultAudience: AUDIENCE });
const vault = await startVaultDouble();
vault.putSecret('secret', 'users/alice/api', { key: 'bench-value' });
vault.setPolicy('user-own', ['secret/data/users/{{user}}/*']);
vault.enableJwtAuth('jwt', { issuer: idp.issuer, jwksUri: idp.jwksUri });
vault.setJwtRole('jwt', 'default', { boundAudiences: [AUDIENCE], policies: ['user-own'], ttlSeconds: 3600 });
const alice = await idp.mintToken({ sub: 'alice' });
const options = { url: vault.url, mount: 'secret', authMethod: 'oidc', authMount: 'jwt', role: 'default', saTokenPath: '/nonexistent' } as const;

const backend = new StoreSecretsBackend(options);
const read = () => backend.get('users/alice/api', { userToken: alice });
// The baseline logs in once, as the backend did, then reads the path by hand.
const login = await fetch(`${vault.url}/v1/auth/jwt/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'default', jwt: alice }) });
const storeToken = ((await login.json()) as { auth: { client_token: string } }).auth.client_token;
const plain = async () => {
  const response = await fetch(`${vault.url}/v1/secret/data/users/alice/api`, { headers: { 'x-vault-token': storeToken, accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  return ((await response.json()) as { data: { data: unknown } }).data.data;
};

const sides = { backend: [] as number[], fetch: [] as number[] };
await throughput(read, CONCURRENCY, 300);
await throughput(plain, CONCURRENCY, 300);
for (let round = 0; round < ROUNDS; round++) {
  sides.backend.push(await throughput(read, CONCURRENCY, MS_PER_SIDE));
  sides.fetch.push(await throughput(plain, CONCURRENCY, MS_PER_SIDE));
}

// 1,000 concurrent reads by one user on a backend with nothing cached yet.
const fresh = new StoreSecretsBackend(options);
const loginsBefore = vault.logins().length;
await Promise.all(Array.from({ length: 1000 }, () => fresh.get('users/alice/api', { userToken: alice })));
const logins = vault.logins().length - loginsBefore;

await Promise.all([idp.close(), vault.close()]);

const ratios = sides.backend.map((v, i) => v / sides.fetch[i]!);
process.stdout.write(`${CONCURRENCY} concurrent loops, ${ROUNDS} rounds of ${MS_PER_SIDE} ms per side, sides alternating (one process: double, IdP and load)\n`);
printTable([
  ['side', 'best reads/s', 'median reads/s', 'ratio to fetch (best)', 'ratio to fetch (median)'],
  ['StoreSecretsBackend.get, OIDC store token cached', Math.max(...sides.backend).toFixed(0), median(sides.backend).toFixed(0), `${Math.max(...ratios).toFixed(2)}x`, `${median(ratios).toFixed(2)}x`],
  ['plain fetch of the same KV v2 path, same store token', Math.max(...sides.fetch).toFixed(0), median(sides.fetch).toFixed(0), '1.00x', '1.00x'],
]);
process.stdout.write(`reads/s per round: backend ${sides.backend.map(Math.round).join(' ')}; fetch ${sides.fetch.map(Math.round).join(' ')}\n`);
process.stdout.write(`1,000 concurrent reads by one user on a fresh backend: ${logins} store login${logins === 1 ? '' : 's'} (expected 1)\n`);
const outIndex = args.indexOf('--out');
if (outIndex >= 0 && args[outIndex + 1]) {
  writeFileSync(args[outIndex + 1]!, `${JSON.stringify({ concurrency: CONCURRENCY, rounds: ROUNDS, msPerSide: MS_PER_SIDE, readsPerSec: sides, ratios, concurrentReads: 1000, logins }, null, 2)}\n`);
}
if (logins !== 1) process.exitCode = 1;
