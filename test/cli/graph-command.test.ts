import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
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
  it('seeds demo, creates, imports, queries, exports, introspects and drops', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    const list = await run(dataDir, 'graph', 'list', '--json');
    expect(list.code).toBe(0);
    expect((JSON.parse(list.out) as { name: string }[]).map((g) => g.name)).toEqual(['demo']);

    const file = join(dataDir, 'people.jsonl');
    writeFileSync(file, [
      JSON.stringify({ label: 'Person', id: 'p1', props: { name: 'Ada', born: 1815 } }),
      '',
      JSON.stringify({ label: 'Person', id: 'p2', props: { name: 'Alan', born: 1912 } }),
      JSON.stringify({ src: 'p1', tgt: 'p2', type: 'INSPIRED' }),
    ].join('\n'));
    const imported = await run(dataDir, 'graph', 'import', 'people', file, '--create');
    expect(imported).toMatchObject({ code: 0, out: 'imported 4 lines into people in 1 batches; now at version 1' });

    const query = await run(dataDir, 'cypher', 'people', 'MATCH (a:Person)-[:INSPIRED]->(b) RETURN a.name, b.name');
    expect(query.code).toBe(0);
    expect(JSON.parse(query.out)).toEqual({ id: 1, result: { columns: ['a.name', 'b.name'], rows: [['Ada', 'Alan']], version: 1 } });

    const bad = await run(dataDir, 'cypher', 'people', 'MATCH (a:Person RETURN a');
    expect(bad.code).toBe(1);
    expect((JSON.parse(bad.out) as { error: { code: string } }).error.code).toBe('TG_CYPHER_SYNTAX');

    const out = join(dataDir, 'export.jsonl');
    expect((await run(dataDir, 'graph', 'export', 'people', '--out', out)).code).toBe(0);
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

  it('an import with a bad line names the file and line and keeps earlier batches', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    const file = join(dataDir, 'bad.jsonl');
    writeFileSync(file, [JSON.stringify({ label: 'Person', id: 'p1', props: {} }), JSON.stringify({ label: 'Person', id: 'p2', props: { score: Number.MAX_SAFE_INTEGER * 4 } })].join('\n'));
    const result = await run(dataDir, 'graph', 'import', 'g', file, '--create');
    expect(result.code).toBe(1);
    expect(result.err).toContain(`TG_VALUE_INVALID: ${file}:2: props.score: expected an integer between`);
    const list = await run(dataDir, 'graph', 'list', '--json');
    expect((JSON.parse(list.out) as { name: string; version: number }[]).find((g) => g.name === 'g')?.version).toBe(0);
  });
});
