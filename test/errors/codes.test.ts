import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ToolgraphError, type ErrorCodeInfo } from '../../src/errors/index.ts';
import { FEATURES_NOT_IN_BUILD } from '../../src/serve/features-not-in-build.ts';

/** Every TypeScript file under src/ except the codes table itself, as one text. */
function sourceText(): string {
  const root = new URL('../../src/', import.meta.url).pathname;
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== join('errors', 'codes.ts'));
  return files.map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
}

describe('error codes', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it.each(Object.entries(ERROR_CODES))('%s is documented in the README with its status', (code, { status }) => {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    expect(row, `README.md has no row for ${code}`).toBeDefined();
    expect(row).toContain(`| ${status} |`);
  });

  it('every code in the README exists', () => {
    const documented = [...readme.matchAll(/^\| `(TG_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    for (const code of documented) expect(Object.keys(ERROR_CODES)).toContain(code);
  });

  it('codes are stable identifiers', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^TG_[A-Z0-9_]+$/);
  });

  it('builds the documented error body', () => {
    const error = new ToolgraphError('TG_NOT_FOUND', 'No route for GET /x.', { details: { path: '/x' } });
    expect(error.status).toBe(404);
    expect(error.toBody()).toEqual({ error: { code: 'TG_NOT_FOUND', message: 'No route for GET /x.', details: { path: '/x' } } });
  });
});

describe('reserved codes', () => {
  const source = sourceText();
  // Raised as a ToolgraphError, as a GraphQL error (graphqlError), or mapped from a peer's code (`code: 'TG_…'`).
  const raised = (code: string) => new RegExp(`(?:ToolgraphError\\(|graphqlError\\(|code: )\\s*['"]${code}['"]`).test(source);
  const entries = Object.entries(ERROR_CODES as Record<string, ErrorCodeInfo>);

  it.each(entries.filter(([, info]) => info.reservedFor === undefined).map(([code]) => code))('%s is raised somewhere in src/', (code) => {
    expect(raised(code), `${code} is not raised by any new ToolgraphError('${code}', …) in src/: mark it reservedFor the feature that will raise it`).toBe(true);
  });

  it.each(entries.filter(([, info]) => info.reservedFor !== undefined).map(([code, info]) => [code, info.reservedFor!]))('%s is reserved for %s, which is not in this build, and nothing raises it', (code, feature) => {
    expect(FEATURES_NOT_IN_BUILD.map((row) => row.feature)).toContain(feature);
    expect(raised(code), `${code} is raised in src/: drop its reservedFor mark`).toBe(false);
  });

  it('the README marks reserved codes as such', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const [code, info] of entries) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${code}\` |`))!;
      expect(row.includes('*Reserved for'), code).toBe(info.reservedFor !== undefined);
    }
  });
});

describe('README generated tables', () => {
  it('match the settings and error codes in the code (run `npm run docs` to refresh)', async () => {
    const { renderReadme } = await import('../../scripts/docs/readme-tables.ts');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(renderReadme(readme)).toBe(readme);
  });
});
