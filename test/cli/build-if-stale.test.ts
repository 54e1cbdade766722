import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { STAMP_FILE, buildIfStale, buildInputs, isStale } from '../../scripts/build-if-stale.ts';

let root: string;
let builds: number;

/** Stands in for tsc: writes the entry point `npm start` runs, counts its runs, may do more meanwhile. */
function fakeBuild(status = 0, meanwhile?: () => void): (at: string) => number {
  return (at) => {
    builds += 1;
    mkdirSync(join(at, 'dist/src/cli'), { recursive: true });
    writeFileSync(join(at, 'dist/src/cli/toolgraph.js'), `// build ${builds}\n`);
    meanwhile?.();
    return status;
  };
}

const run = (options: { force?: boolean; status?: number; meanwhile?: () => void } = {}) =>
  buildIfStale(root, { ...(options.force ? { force: true } : {}), build: fakeBuild(options.status, options.meanwhile) });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tg-build-if-stale-'));
  builds = 0;
  for (const [path, text] of [
    ['package.json', '{"type":"module"}\n'],
    ['tsconfig.json', '{}\n'],
    ['tsconfig.build.json', '{"extends":"./tsconfig.json"}\n'],
    ['src/cli/toolgraph.ts', 'export {};\n'],
    ['src/graph/engine.ts', 'export const x = 1;\n'],
    ['generated/types/a.ts', 'export type A = string;\n'],
    ['README.md', '# not an input\n'],
    ['test/a.test.ts', '// not an input\n'],
  ] as const) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  expect(run()).toEqual({ built: true, status: 0 });
  expect(builds).toBe(1);
});

describe('build-if-stale (npm start\'s prestart)', () => {
  it('builds a checkout without a stamp, then nothing until an input changes', () => {
    expect(JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8'))).toMatchObject({ inputs: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(run()).toEqual({ built: false, status: 0 });
    expect(isStale(root)).toBe(false);
    expect(builds).toBe(1);
    expect(buildInputs(root)).toEqual(['generated/types/a.ts', 'package.json', 'src/cli/toolgraph.ts', 'src/graph/engine.ts', 'tsconfig.build.json', 'tsconfig.json']);
  });

  it('files that are not inputs change nothing', () => {
    writeFileSync(join(root, 'README.md'), '# edited\n');
    writeFileSync(join(root, 'test/b.test.ts'), '// new\n');
    expect(run().built).toBe(false);
  });

  it.each<[string, () => void]>([
    ['an edited source', () => writeFileSync(join(root, 'src/graph/engine.ts'), 'export const x = 2; // edited\n')],
    ['an added source', () => writeFileSync(join(root, 'src/graph/new-file.ts'), 'export {};\n')],
    ['a removed source', () => rmSync(join(root, 'src/graph/engine.ts'))],
    ['a renamed source', () => renameSync(join(root, 'src/graph/engine.ts'), join(root, 'src/graph/engine2.ts'))],
    ['a regenerated file', () => writeFileSync(join(root, 'generated/types/a.ts'), 'export type A = number;\n')],
    ['an edited tsconfig', () => writeFileSync(join(root, 'tsconfig.build.json'), '{"extends":"./tsconfig.json","compilerOptions":{}}\n')],
    ['an edited package.json', () => writeFileSync(join(root, 'package.json'), '{"type":"module","version":"2"}\n')],
    ['a source whose time went back (a checkout or a copy keeping old times)', () => utimesSync(join(root, 'src/graph/engine.ts'), new Date('2001-01-01'), new Date('2001-01-01'))],
    ['a missing entry point', () => rmSync(join(root, 'dist/src/cli/toolgraph.js'))],
    ['a missing stamp', () => rmSync(join(root, STAMP_FILE))],
  ])('%s builds again, once', (_name, change) => {
    change();
    expect(isStale(root)).toBe(true);
    expect(run()).toEqual({ built: true, status: 0 });
    expect(run().built).toBe(false);
    expect(builds).toBe(2);
  });

  it('a failed build stamps nothing, so the next start builds again', () => {
    writeFileSync(join(root, 'src/graph/engine.ts'), 'export const x: number = "no";\n');
    expect(run({ status: 2 })).toEqual({ built: true, status: 2 });
    expect(run().built).toBe(true);
    expect(builds).toBe(3);
  });

  it('an edit made while tsc runs is not taken as built', () => {
    writeFileSync(join(root, 'src/graph/engine.ts'), 'export const x = 3;\n');
    expect(run({ meanwhile: () => writeFileSync(join(root, 'src/graph/engine.ts'), 'export const x = 4; // saved during the build\n') }).built).toBe(true);
    expect(run().built).toBe(true);
    expect(run().built).toBe(false);
  });

  it('--force (npm run build) builds a current checkout', () => {
    expect(run({ force: true }).built).toBe(true);
    expect(builds).toBe(2);
  });

  it('npm start runs it before starting, npm run build forces it', () => {
    const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['prestart']).toBe('node scripts/build-if-stale.ts');
    expect(scripts['build']).toBe('node scripts/build-if-stale.ts --force');
    expect(scripts['prepare']).toBe('npm run build');
  });
});
