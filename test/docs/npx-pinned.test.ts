// Every `npx` of a package this repository does not provide, in the README's and docs' console
// blocks, runs a pinned version and says -y: unpinned, a copy of the page runs whatever version is
// newest that day; without -y, npx stops to ask before installing, which hangs a script.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INSPECTOR } from '../../scripts/docs/replay-tour.ts';
import { consoleCommands } from '../support/console-commands.ts';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { bin: Record<string, string> };
const texts = ['README.md', ...readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
  .map((name) => [name, readFileSync(new URL(name, root), 'utf8')] as const);
const readme = texts[0]![1];

/** Each `npx …` invocation in a command line (several may be piped or chained). */
function npxCalls(command: string): string[] {
  return [...command.matchAll(/(?:^|[|;&(]\s*|\s)npx\s+([^|;&)]+)/g)].map((m) => m[1]!.trim());
}

describe('npx in the docs', () => {
  const foreign = texts.flatMap(([name, text]) => consoleCommands(text).flatMap((command) => npxCalls(command)
    .filter((call) => !Object.keys(pkg.bin).includes(call.split(/\s+/)[0]!))
    .map((call) => [name, call] as const)));

  it('the README tour calls the MCP Inspector (so this test checks something)', () => {
    expect(foreign.filter(([name, call]) => name === 'README.md' && call.includes('@modelcontextprotocol/inspector'))).toHaveLength(3);
  });

  it.each(foreign)('%s: npx %s is pinned and says -y', (_name, call) => {
    const [flag, spec] = call.split(/\s+/);
    expect(['-y', '--yes']).toContain(flag);
    expect(spec).toMatch(/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+@\d+\.\d+\.\d+$/);
  });

  it('the Inspector version the tour names is the one its commands pin', () => {
    const named = /`@modelcontextprotocol\/inspector` (\d+\.\d+\.\d+)\)/.exec(readme)?.[1];
    expect(named).toBeDefined();
    for (const [, call] of foreign.filter(([, c]) => c.includes('@modelcontextprotocol/inspector'))) {
      expect(call.split(/\s+/)[1]).toBe(`@modelcontextprotocol/inspector@${named}`);
      expect(INSPECTOR.test(`npx ${call}`)).toBe(true);
    }
  });
});
