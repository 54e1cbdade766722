import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ToolgraphError } from '../../src/errors/index.ts';

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

describe('README generated tables', () => {
  it('match the settings and error codes in the code (run `npm run docs` to refresh)', async () => {
    const { renderReadme } = await import('../../scripts/docs/readme-tables.ts');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(renderReadme(readme)).toBe(readme);
  });
});
