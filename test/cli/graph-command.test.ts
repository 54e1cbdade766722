import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { isFreshStore, openGraphEngine } from '../../src/serve/index.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';

function memoryIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

async function run(dataDir: string, ...args: string[]) {
  const io = memoryIo();
  const code = await runProgram([...args, '--data-dir', dataDir, '--log-level', 'error'], io);
  return { code, out: io.lines.join('\n'), err: io.errors.join('\n') };
}

describe('toolgraph graph / cypher / introspect on a file store', () => {
  it('creates, imports, queries, exports, introspects and drops', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));

    const file = join(dataDir, 'people.jsonl');
    writeFileSync(file, [
      JSON.stringify({ label: 'Person', id: 'p1', props: { name: 'Ada', born: 1815 } }),
      '',
      JSON.stringify({ label: 'Person', id: 'p2', props: { name: 'Alan', born: 1912 } }),
      JSON.stringify({ src: 'p1', tgt: 'p2', type: 'INSPIRED' }),
    ].join('\n'));
    const imported = await run(dataDir, 'graph', 'import', 'people', file, '--create');
    expect(imported).toMatchObject({ code: 0, out: 'imported 3 records (2 nodes, 1 edge) into people in 1 batch; now at version 1' });

    const query = await run(dataDir, 'cypher', 'people', 'MATCH (a:Person)-[:INSPIRED]->(b) RETURN a.name, b.name');
    expect(query.code).toBe(0);
    expect(JSON.parse(query.out)).toEqual({ id: 1, result: { columns: ['a.name', 'b.name'], rows: [['Ada', 'Alan']], version: 1 } });

    const bad = await run(dataDir, 'cypher', 'people', 'MATCH (a:Person RETURN a');
    expect(bad.code).toBe(1);
    expect((JSON.parse(bad.out) as { error: { code: string } }).error.code).toBe('TG_CYPHER_SYNTAX');

    // The execution budget comes from the settings, as for the server.
    const capped = await run(dataDir, 'cypher', 'people', 'MATCH (a), (b) RETURN count(*)', '--query-max-rows', '3');
    expect(capped.code).toBe(1);
    expect(JSON.parse(capped.out)).toMatchObject({ error: { code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxRows', max: 3 } } });

    const out = join(dataDir, 'export.jsonl');
    expect(await run(dataDir, 'graph', 'export', 'people', '--out', out)).toMatchObject({ code: 0, err: 'exported 3 records (2 nodes, 1 edge) from people at version 1' });
    const exported = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(exported).toEqual([
      { label: 'Person', id: 'p1', props: { born: 1815, name: 'Ada' } },
      { label: 'Person', id: 'p2', props: { born: 1912, name: 'Alan' } },
      { src: 'p1', tgt: 'p2', type: 'INSPIRED' },
    ]);

    const sdl = await run(dataDir, 'introspect', 'people');
    expect(sdl.code).toBe(0);
    expect(sdl.out).toContain('type Person implements Node @key(fields: "id")');
    expect(sdl.out).toContain('born: Int');

    expect((await run(dataDir, 'graph', 'drop', 'people')).out).toBe('dropped graph people');
    const missing = await run(dataDir, 'introspect', 'people');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('TG_GRAPH_NOT_FOUND');
  });

  it('an import with a bad line names the file and line, and --create leaves no graph behind', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    const file = join(dataDir, 'bad.jsonl');
    writeFileSync(file, [JSON.stringify({ label: 'Person', id: 'p1', props: {} }), JSON.stringify({ label: 'Person', id: 'p2', props: { score: Number.MAX_SAFE_INTEGER * 4 } })].join('\n'));
    const result = await run(dataDir, 'graph', 'import', 'g', file, '--create');
    expect(result.code).toBe(1);
    expect(result.err).toContain(`TG_VALUE_INVALID: ${file}:2: props.score: expected an integer between`);
    expect(result.err).toContain('Nothing was imported.');
    const list = await run(dataDir, 'graph', 'list', '--json');
    expect(JSON.parse(list.out)).toEqual([]);
  });

  it('a missing import file is a TG_ error naming it, not a stack trace', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    const file = join(dataDir, 'nowhere.jsonl');
    const result = await run(dataDir, 'graph', 'import', 'g', file, '--create');
    expect(result).toEqual({ code: 1, out: '', err: `toolgraph: TG_FILE_UNREADABLE: ${file} does not exist.` });
  });

  it('an import into a graph that does not exist suggests --create, and changes nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    const file = join(dataDir, 'people.jsonl');
    writeFileSync(file, `${JSON.stringify({ label: 'Person', id: 'p1', props: {} })}\n`);
    const result = await run(dataDir, 'graph', 'import', 'people', file);
    expect(result).toEqual({ code: 1, out: '', err: 'toolgraph: TG_GRAPH_NOT_FOUND: No graph is named "people"; import with --create to make it first (toolgraph graph list names the graphs of this store).' });
    expect(JSON.parse((await run(dataDir, 'graph', 'list', '--json')).out)).toEqual([]);
  });
});

describe('CLI commands on a fresh data dir', () => {
  it('never seed the reference graph: `graph create g` gives a store with just g', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    expect((await run(dataDir, 'graph', 'create', 'g')).out).toBe('created graph g');
    const list = await run(dataDir, 'graph', 'list', '--json');
    expect((JSON.parse(list.out) as { name: string }[]).map((g) => g.name)).toEqual(['g']);
  });

  it('`graph list` shows no graph, says how to get one, and leaves the store fresh for `serve` to seed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    const list = await run(dataDir, 'graph', 'list');
    expect(list.code).toBe(0);
    expect(list.out.split('\n')).toHaveLength(1);
    expect(list.err).toContain('no graphs in this store: `toolgraph serve` seeds the reference graph as demo into a fresh store');
    const values = resolveConfig({ flags: { dataDir, persistence: 'file' } }).values;
    expect(isFreshStore(values)).toBe(true);
    const engine = await openGraphEngine(values, silentLogger(), { seed: true });
    try {
      expect(engine.listGraphs().map((g) => g.name)).toEqual(['demo']);
    } finally {
      await engine.close();
    }
  });
});
