import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consoleCommands } from '../support/console-commands.ts';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const docs = readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => [`docs/${f}`, readFileSync(new URL(`docs/${f}`, root), 'utf8')] as const);
const tour = readme.slice(readme.indexOf('<!-- tour:start -->'), readme.indexOf('<!-- tour:end -->'));

/** The files a command writes: `--out`, `--private`, `--jwks` and `>` redirections (quoted data aside). */
function writtenFiles(command: string): string[] {
  const unquoted = command.replace(/'[^']*'/g, "''");
  return [
    ...[...unquoted.matchAll(/--(?:out|private|jwks)\s+(\S+)/g)].map((m) => m[1]!),
    ...[...unquoted.matchAll(/(?<![0-9&])>\s*([^\s&]+)/g)].map((m) => m[1]!).filter((t) => t !== '/dev/null'),
  ];
}

describe('the repository stands alone', () => {
  it.each([['README.md', readme] as const, ...docs])('%s points at nothing outside the repository', (_name, text) => {
    const outside = [...text.matchAll(/(?:\]\(|`)(\.\.\/[^)`\s]*)/g)].map((m) => m[1]);
    expect(outside).toEqual([]);
  });

  it.each([['README.md', readme] as const, ...docs])('%s links only to files that exist', (name, text) => {
    const base = new URL(name.startsWith('docs/') ? 'docs/' : './', root);
    const links = [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
    for (const target of links) expect(existsSync(new URL(target, base)), `${name} links to ${target}, which does not exist`).toBe(true);
    // NOTES.md is the design's scratch file outside the repository.
    expect(text).not.toMatch(/\bNOTES\.md\b/);
  });

  it('the specification and the design are in docs/', () => {
    expect(readme).toContain('[docs/spec.md](docs/spec.md)');
    expect(readme).toContain('[docs/architecture.md](docs/architecture.md)');
    expect(docs.map(([name]) => name)).toEqual(expect.arrayContaining(['docs/spec.md', 'docs/architecture.md']));
  });
});

describe('console blocks', () => {
  it.each([['README.md', readme] as const, ...docs])('%s writes example files (keys, exports, headers) to a temporary directory, never into the clone', (_name, text) => {
    for (const command of consoleCommands(text)) {
      for (const target of writtenFiles(command)) expect(target, `${command.slice(0, 120)} writes ${target} inside the clone`).toMatch(/^"?\$tmp\//);
    }
  });
});

describe('the guided tour', () => {
  const commands = consoleCommands(tour);

  it('has commands to check', () => {
    expect(commands.length).toBeGreaterThan(10);
  });

  it('writes its scratch files outside the clone, so git status stays clean', () => {
    // Quoted arguments (Cypher, JSON) are data, not redirections.
    const targets = commands.flatMap(writtenFiles);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(target, `the tour writes ${target} inside the clone`).toMatch(/^(\$tmp\/|"\$tmp\/)/);
  });

  it('says how to stop the server before the CLI opens the store', () => {
    const start = tour.indexOf('Work on graphs from the CLI.');
    const cliStep = tour.slice(start, tour.indexOf('\n**', start));
    expect(start).toBeGreaterThan(0);
    expect(cliStep).toMatch(/Ctrl-C/);
    expect(cliStep).toContain('toolgraph: shutting down');
  });
});
