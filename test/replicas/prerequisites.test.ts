import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decide, missingPrerequisites, nginxPath, replicaSuite, testDatabaseUrl, type Surroundings } from './support/prerequisites.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A machine with exactly `present` executables and `env`. */
const machine = (env: Record<string, string>, present: readonly string[] = []): Surroundings => ({ env, executable: (path) => present.includes(path) });

const FULL = machine({ TEST_DATABASE_URL: 'postgresql://u@db.example:5432/x', PATH: '/usr/bin:/bin' }, ['/usr/sbin/nginx', '/usr/bin/openssl']);
const BARE = machine({ PATH: '/usr/bin' });

describe('replica suite prerequisites', () => {
  it('has no fallback database: testDatabaseUrl throws when TEST_DATABASE_URL is unset or empty, and returns only the URL named', () => {
    expect(() => testDatabaseUrl({})).toThrow(/TEST_DATABASE_URL is not set/);
    expect(() => testDatabaseUrl({ TEST_DATABASE_URL: '' })).toThrow(/TEST_DATABASE_URL is not set/);
    expect(testDatabaseUrl({ TEST_DATABASE_URL: 'postgresql://u@db.example:5432/x' })).toBe('postgresql://u@db.example:5432/x');
    // The module keeps no URL of its own: nothing at all names 127.0.0.1:5432 unless the environment does.
    expect(() => testDatabaseUrl({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/test' })).toThrow();
  });

  it('runs when everything is there; names each missing prerequisite with how to provide it', () => {
    expect(decide({ postgres: true, nginx: true, openssl: true }, FULL)).toEqual({ action: 'run' });
    expect(decide({}, BARE)).toEqual({ action: 'run' });
    const skipped = decide({ postgres: true, nginx: true, openssl: true }, BARE);
    expect(skipped).toMatchObject({ action: 'skip' });
    expect(skipped.action !== 'run' && skipped.reason).toBe(
      'TEST_DATABASE_URL is not set (set it to a PostgreSQL URL, e.g. postgresql://postgres@127.0.0.1:5432/test); '
      + 'nginx not found at /usr/sbin/nginx (apt-get install -y nginx, or set TEST_NGINX to its path); '
      + 'openssl not found on PATH (apt-get install -y openssl)');
    // Only what the suite needs is asked for.
    expect(missingPrerequisites({ nginx: true }, machine({}, ['/usr/sbin/nginx']))).toEqual([]);
    expect(missingPrerequisites({ postgres: true }, machine({}, ['/usr/sbin/nginx'])).map((m) => m.why)).toEqual(['TEST_DATABASE_URL is not set']);
  });

  it('TEST_NGINX names another nginx, and a missing one is named by its path', () => {
    expect(nginxPath({ TEST_NGINX: '/opt/nginx/sbin/nginx' })).toBe('/opt/nginx/sbin/nginx');
    expect(nginxPath({})).toBe('/usr/sbin/nginx');
    expect(missingPrerequisites({ nginx: true }, machine({ TEST_NGINX: '/opt/nginx/sbin/nginx' }, ['/opt/nginx/sbin/nginx']))).toEqual([]);
    expect(missingPrerequisites({ nginx: true }, machine({ TEST_NGINX: '/nonexistent' }, ['/usr/sbin/nginx'])).map((m) => m.why)).toEqual(['nginx not found at /nonexistent']);
  });

  it('under CI (CI=true) a missing prerequisite fails instead of skipping: CI never skips the replica suites', () => {
    const ci = machine({ CI: 'true', PATH: '/usr/bin' });
    expect(decide({ postgres: true, nginx: true }, ci)).toMatchObject({ action: 'fail' });
    expect(() => replicaSuite('The replica suite x', { postgres: true }, ci)).toThrow(
      'The replica suite x cannot run: TEST_DATABASE_URL is not set (set it to a PostgreSQL URL, e.g. postgresql://postgres@127.0.0.1:5432/test). CI never skips');
    // With everything there, CI runs it like anyone else.
    expect(decide({ postgres: true, nginx: true }, machine({ ...FULL.env, CI: 'true' }, ['/usr/sbin/nginx']))).toEqual({ action: 'run' });
    // Only CI=true is CI (the skip summary's own test runs with CI='').
    expect(decide({ postgres: true }, machine({ CI: '' }))).toMatchObject({ action: 'skip' });
  });

  it('a skipped suite says why in its title and in the run\'s skip summary, and its file\'s hooks never run', { timeout: 60_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-prerequisites-'));
    try {
      const config = join(dir, 'vitest.config.mjs');
      writeFileSync(config, `export default { root: ${JSON.stringify(root)}, test: { include: ['test/replicas/support/fixtures/needs.fixture.ts'], pool: 'forks', reporters: ['verbose', ${JSON.stringify(join(root, 'test/support/skip-summary-reporter.ts'))}] } };\n`);
      const env: Record<string, string | undefined> = { ...process.env, CI: '', NO_COLOR: '1', TEST_NGINX: '/nonexistent/nginx' };
      delete env['TEST_DATABASE_URL'];
      const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config], { cwd: root, encoding: 'utf8', env });
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).not.toContain('HOOK RAN');
      expect(run.stdout).toContain('two replicas (skipped: TEST_DATABASE_URL is not set (set it to a PostgreSQL URL, e.g. postgresql://postgres@127.0.0.1:5432/test); nginx not found at /nonexistent/nginx (apt-get install -y nginx, or set TEST_NGINX to its path))');
      const summary = run.stdout.slice(run.stdout.lastIndexOf('Skipped: '));
      expect(summary).toContain('Skipped: 2 tests, because:');
      expect(summary).toContain('- The fixture replica suite: TEST_DATABASE_URL is not set; nginx not found at /nonexistent/nginx. To run them: set it to a PostgreSQL URL, e.g. postgresql://postgres@127.0.0.1:5432/test; apt-get install -y nginx, or set TEST_NGINX to its path; then npx vitest run test/replicas');

      // The same file under CI fails.
      const ci = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config], { cwd: root, encoding: 'utf8', env: { ...env, CI: 'true' } });
      expect(ci.status).toBe(1);
      expect(ci.stdout + ci.stderr).toContain('The fixture replica suite cannot run: TEST_DATABASE_URL is not set');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
