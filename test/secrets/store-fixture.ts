import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, generateKeyPair } from 'jose';
import { StoreSecretsBackend, type StoreSecretsBackendOptions } from '../../src/secrets/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { startVaultDouble, type VaultDouble } from '../support/vault-double.ts';
import { failure as toolgraphFailure } from '../support/toolgraph-failure.ts';

export const AUDIENCE = 'https://store.toolgraph.test';

/** A clock both the store double and the backend read, so TTL tests need no sleeping. */
export interface FakeClock {
  now: () => number;
  advance(seconds: number): void;
}

export function fakeClock(): FakeClock {
  let t = Date.now();
  return { now: () => t, advance: (seconds) => void (t += seconds * 1000) };
}

/** Secret values generated per run, so the log test can look for each of them. */
export interface Fixture {
  idp: TestIdp;
  vault: VaultDouble;
  clock: FakeClock;
  dir: string;
  saTokenPath: string;
  roleId: string;
  secretId: string;
  staticToken: string;
  values: Record<string, string>;
  /** Every credential the fixture handed out, for the log test. */
  credentials: string[];
  backend(overrides?: Partial<StoreSecretsBackendOptions>): StoreSecretsBackend;
  close(): Promise<void>;
}

const rand = () => crypto.randomUUID();

/**
 * IdP + store double set up the way docs/secrets.md tells an operator to: JWT auth at `jwt` (and a
 * custom mount `corp-sso`) trusting the IdP, role `default` (role_type jwt, bound_audiences, user
 * claim sub, groups claim groups), policies granting read; AppRole; Kubernetes auth; a static token.
 */
export async function startStoreFixture(): Promise<Fixture> {
  const clock = fakeClock();
  const idp = await startIdp({ defaultAudience: AUDIENCE });
  const vault = await startVaultDouble({ now: clock.now });
  const values = {
    team: `team-db-${rand()}`, alice: `alice-key-${rand()}`, bob: `bob-key-${rand()}`,
    ops: `ops-deploy-${rand()}`, prefixed: `prefixed-${rand()}`, spaced: `spaced-${rand()}`,
  };
  vault.putSecret('secret', 'team/db', { password: values.team, user: 'app' });
  vault.putSecret('secret', 'users/alice/api', { key: values.alice });
  vault.putSecret('secret', 'users/bob/api', { key: values.bob });
  vault.putSecret('secret', 'ops/deploy', { key: values.ops });
  vault.putSecret('secret', 'apps/toolgraph/db', { password: values.prefixed });
  vault.putSecret('secret', 'team/with space/é', { v: values.spaced });
  vault.putSecret('secret', 'team/gone', { v: 'old' });
  vault.deleteSecret('secret', 'team/gone');

  vault.setPolicy('user-own', ['secret/data/users/{{user}}/*']);
  vault.setPolicy('team-read', ['secret/data/team/*', 'secret/data/apps/*']);
  vault.setPolicy('ops-read', ['secret/data/ops/*']);

  for (const mount of ['jwt', 'corp-sso']) {
    vault.enableJwtAuth(mount, { issuer: idp.issuer, jwksUri: idp.jwksUri });
    vault.setJwtRole(mount, 'default', { boundAudiences: [AUDIENCE], userClaim: 'sub', groupsClaim: 'groups', policies: ['user-own'], groupPolicies: { eng: ['team-read'] }, ttlSeconds: 60 });
  }
  const roleId = `role-${rand()}`;
  const secretId = `sid-${rand()}`;
  vault.setAppRole('toolgraph', { roleId, secretId, policies: ['ops-read', 'team-read'], ttlSeconds: 120 });

  const { privateKey, publicKey } = await generateKeyPair('ES256');
  vault.enableKubernetesAuth({ key: publicKey });
  vault.setKubernetesRole('default', { serviceAccountNames: ['toolgraph'], policies: ['ops-read'], ttlSeconds: 300 });
  const saJwt = await new SignJWT({ 'kubernetes.io/serviceaccount/service-account.name': 'toolgraph' })
    .setProtectedHeader({ alg: 'ES256' }).setIssuer('kubernetes/serviceaccount').setSubject('system:serviceaccount:default:toolgraph').sign(privateKey);
  const dir = mkdtempSync(join(tmpdir(), 'toolgraph-secrets-'));
  const saTokenPath = join(dir, 'sa-token');
  writeFileSync(saTokenPath, `${saJwt}\n`);

  const staticToken = vault.createToken(['team-read']);
  const base: StoreSecretsBackendOptions = {
    url: vault.url, mount: 'secret', authMethod: 'auto', authMount: 'jwt', role: 'default',
    saTokenPath: join(dir, 'absent-sa-token'), now: clock.now,
  };
  return {
    idp, vault, clock, dir, saTokenPath, roleId, secretId, staticToken, values,
    credentials: [secretId, staticToken, saJwt],
    backend: (overrides = {}) => new StoreSecretsBackend({ ...base, ...overrides }),
    async close() {
      await Promise.all([idp.close(), vault.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { captureLogger } from '../support/capture-logger.ts';

/** The ToolgraphError `promise` rejects with, as its code and message (what these tests compare whole). */
export async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const { code, message } = await toolgraphFailure(promise);
  return { code, message };
}
