import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { openGraphEngine } from '../../src/serve/index.ts';

const ROOT = new URL('../..', import.meta.url);

/**
 * Runs the real entry point in a child process with the module recorder preloaded; returns what it
 * printed and the packages and source files it loaded (no timing: the bench suite `cli` measures that).
 */
async function loadedBy(args: string[], env: Record<string, string> = {}) {
  const record = join(mkdtempSync(join(tmpdir(), 'tg-modules-')), 'modules.txt');
  const child = spawn(process.execPath, ['--import', './test/support/record-modules.ts', 'src/cli/toolgraph.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TOOLGRAPH_RECORD_MODULES: record, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const [code] = (await once(child, 'exit')) as [number | null];
  const urls = readFileSync(record, 'utf8').split('\n');
  const packages = new Set(urls.flatMap((url) => {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    return match ? [match[1]!] : [];
  }));
  const sources = urls.filter((url) => url.includes('/src/')).map((url) => url.slice(url.indexOf('/src/') + 1));
  return { code, stdout, stderr, packages, sources };
}

/** Packages only a server needs: a command that is not one must never load them. */
const SERVER_PACKAGES = ['graphql', 'graphql-yoga', '@apollo/subgraph', '@apollo/federation-internals', '@escape.tech/graphql-armor', 'express', '@modelcontextprotocol/sdk', 'pg', 'jose', 'openid-client', 'minisearch', 'zod'];

let home: string;
let dataDir: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tg-lazy-'));
  dataDir = join(home, 'data');
  // The demo store, seeded as `serve` does.
  const engine = await openGraphEngine(resolveConfig({ flags: { dataDir, persistence: 'file' } }).values, silentLogger(), { seed: true });
  await engine.close();
});

describe('each toolgraph command loads only what it runs on', () => {
  it('--version loads neither commander nor any command, settings or error code', async () => {
    const run = await loadedBy(['--version']);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: '0.1.0\n' });
    expect([...run.packages]).toEqual([]);
    expect(run.sources.sort()).toEqual(['src/cli/toolgraph.ts', 'src/cli/version.ts']);
  });

  it('--help loads the command table alone: no package, no command module', async () => {
    const run = await loadedBy(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cypher [options] <graph> <query>');
    expect([...run.packages]).toEqual([]);
    expect(run.sources.sort()).toEqual(['src/cli/command-descriptions.ts', 'src/cli/command-table.ts', 'src/cli/toolgraph.ts', 'src/cli/top-level-help.ts', 'src/cli/version.ts']);
  });

  it("a command's --help loads commander and that command's module alone", async () => {
    const run = await loadedBy(['cypher', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: toolgraph cypher [options] <graph> <query>');
    expect(run.packages.has('commander')).toBe(true);
    expect(SERVER_PACKAGES.filter((name) => run.packages.has(name))).toEqual([]);
    expect(run.sources.filter((s) => s.startsWith('src/cli/commands/'))).toEqual(['src/cli/commands/cypher-command.ts']);
  });

  it('graph list opens the store without the Cypher executor, GraphQL, the servers, the fixtures or pg', async () => {
    const run = await loadedBy(['graph', 'list', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^demo\s+\d+\s+94\s+293$/m);
    expect(SERVER_PACKAGES.filter((name) => run.packages.has(name))).toEqual([]);
    expect(run.sources.filter((s) => /^src\/(graph\/(cypher|graphql|dispatch|fixtures|jsonl\/import|access)|serve\/start-toolgraph|manifest|tools|auth|http)\b/.test(s))).toEqual([]);
    expect(run.sources.filter((s) => s.startsWith('src/cli/commands/'))).toEqual(['src/cli/commands/graph-command.ts']);
  });

  it("cypher demo 'RETURN 1' runs the dispatch and the executor without GraphQL or the servers", async () => {
    const run = await loadedBy(['cypher', 'demo', 'RETURN 1', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 1, result: { columns: ['1'], rows: [[1]] } });
    expect(SERVER_PACKAGES.filter((name) => run.packages.has(name))).toEqual([]);
    expect(run.sources).toContain('src/graph/cypher/index.ts');
    expect(run.sources.filter((s) => /^src\/(graph\/graphql|serve\/start-toolgraph|manifest|tools|auth|http)\b/.test(s))).toEqual([]);
  });

  it('explain loads the translator and the schema builder, not the GraphQL server', async () => {
    const run = await loadedBy(['explain', 'demo', '{ Person(first: 1) { name } }', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('MATCH (person:Person)');
    expect(['graphql-yoga', '@escape.tech/graphql-armor', 'express', '@modelcontextprotocol/sdk', 'pg'].filter((name) => run.packages.has(name))).toEqual([]);
  });
});
