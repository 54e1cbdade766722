import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe } from 'vitest';
import { reportSkip } from '../../support/skip-reason.ts';

/**
 * What a replica suite needs from the machine, and what happens without it: a user's run skips the
 * suite, naming what is missing and how to provide it (in the suite's title and in the skip summary
 * that closes `npm test`); CI (`CI=true`, which .ci/run sets after provisioning nginx, openssl and
 * PostgreSQL) fails instead, since CI never skips them. No suite falls back to a database nobody
 * named: PostgreSQL is only ever the one TEST_DATABASE_URL names.
 */
export interface Needs {
  /** Debian's nginx, as load balancer and TLS proxy (TEST_NGINX, default /usr/sbin/nginx). */
  readonly nginx?: boolean;
  /** A PostgreSQL the tests may create schemas in, named by TEST_DATABASE_URL. */
  readonly postgres?: boolean;
  /** `openssl` on PATH, for throwaway certificates. */
  readonly openssl?: boolean;
}

/** Where the decision looks: the environment and whether an executable exists (injected by the tests). */
export interface Surroundings {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly executable: (path: string) => boolean;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const HERE: Surroundings = { env: process.env, executable };

export const DEFAULT_NGINX = '/usr/sbin/nginx';
export const EXAMPLE_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';

/** The nginx the replica suites run: TEST_NGINX, or Debian's. */
export function nginxPath(env: Surroundings['env'] = process.env): string {
  return env['TEST_NGINX'] || DEFAULT_NGINX;
}

/** One missing prerequisite: what is wrong, and how to provide it. */
export interface Missing {
  readonly why: string;
  readonly how: string;
}

export const MISSING_POSTGRES: Missing = { why: 'TEST_DATABASE_URL is not set', how: `set it to a PostgreSQL URL, e.g. ${EXAMPLE_DATABASE_URL}` };
export const missingNginx = (path: string): Missing => ({ why: `nginx not found at ${path}`, how: 'apt-get install -y nginx, or set TEST_NGINX to its path' });
export const MISSING_OPENSSL: Missing = { why: 'openssl not found on PATH', how: 'apt-get install -y openssl' };

/** What of `needs` these surroundings lack, in a fixed order (PostgreSQL, nginx, openssl). */
export function missingPrerequisites(needs: Needs, around: Surroundings = HERE): Missing[] {
  const missing: Missing[] = [];
  if (needs.postgres && !around.env['TEST_DATABASE_URL']) missing.push(MISSING_POSTGRES);
  if (needs.nginx) {
    const path = nginxPath(around.env);
    if (!around.executable(path)) missing.push(missingNginx(path));
  }
  if (needs.openssl) {
    const dirs = (around.env['PATH'] ?? '').split(delimiter).filter(Boolean);
    if (!dirs.some((dir) => around.executable(join(dir, 'openssl')))) missing.push(MISSING_OPENSSL);
  }
  return missing;
}

export type Decision =
  | { readonly action: 'run' }
  /** `reason`: every missing prerequisite with how to provide it, e.g. "TEST_DATABASE_URL is not set (set it to …)". */
  | { readonly action: 'skip' | 'fail'; readonly missing: readonly Missing[]; readonly reason: string };

/** Whether a suite with these needs runs, skips (a user's machine) or fails (CI, which never skips it). */
export function decide(needs: Needs, around: Surroundings = HERE): Decision {
  const missing = missingPrerequisites(needs, around);
  if (missing.length === 0) return { action: 'run' };
  const reason = missing.map((m) => `${m.why} (${m.how})`).join('; ');
  return { action: around.env['CI'] === 'true' ? 'fail' : 'skip', missing, reason };
}

/** vitest's `describe` for a suite that runs, or one that registers the suite as skipped with the reason in its title. */
export type Suite = (name: string, body: () => void) => void;

/**
 * The `describe` of a replica suite (`what` names it in the skip summary): vitest's own when every
 * prerequisite is there; `describe.skip` with "skipped: <reason>" in the title otherwise, the reason
 * also reported to the run's skip summary. Under CI a missing prerequisite throws (the test file fails).
 * Every suite of a test file should come from here: the file's own hooks (starting replicas and
 * nginx) then run only when its suites do.
 */
export function replicaSuite(what: string, needs: Needs, around: Surroundings = HERE): Suite {
  const decision = decide(needs, around);
  if (decision.action === 'run') return (name, body) => describe(name, body);
  if (decision.action === 'fail') {
    throw new Error(`${what} cannot run: ${decision.reason}. CI never skips the replica suites; .ci/run provisions nginx, openssl and PostgreSQL and sets TEST_DATABASE_URL.`);
  }
  reportSkip(what, decision.missing.map((m) => m.why).join('; '), `${decision.missing.map((m) => m.how).join('; ')}; then npx vitest run test/replicas`);
  return (name, body) => describe.skip(`${name} (skipped: ${decision.reason})`, body);
}

/**
 * The PostgreSQL URL the replica suites use: TEST_DATABASE_URL, never a default. Call it inside a
 * suite's hooks or tests (which run only when replicaSuite's needs hold), not at a module's top.
 */
export function testDatabaseUrl(env: Surroundings['env'] = process.env): string {
  const url = env['TEST_DATABASE_URL'];
  if (!url) throw new Error(`TEST_DATABASE_URL is not set, and the replica tests touch no database nobody named: ${MISSING_POSTGRES.how}.`);
  return url;
}
