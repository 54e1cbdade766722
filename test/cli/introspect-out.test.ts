import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runProgram } from '../../src/cli/program.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { openGraphEngine } from '../../src/serve/index.ts';

async function run(...args: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const io: CliIo = { out: (l) => lines.push(l), err: (l) => errors.push(l) };
  const code = await runProgram([...args, '--data-dir', dataDir, '--log-level', 'error'], io);
  return { code, out: lines.join('\n'), err: errors.join('\n') };
}

const OLD = '# the SDL of an earlier run\ntype Old { id: ID! }\n';

let dataDir: string;
let sdl: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tg-introspect-'));
  const engine = await openGraphEngine(resolveConfig({ flags: { dataDir, persistence: 'file' } }).values, silentLogger(), { seed: true });
  await engine.close();
  sdl = `${(await run('introspect', 'demo')).out}\n`;
  expect(sdl).toContain('type Person implements Node @key(fields: "id")');
});

function scratch(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tg-introspect-out-'));
  const file = join(dir, 'graph.graphql');
  writeFileSync(file, OLD);
  return { dir, file };
}

describe('toolgraph introspect --out FILE', () => {
  it('replaces the file whole: a reader of the old file keeps the old text, no temporary file stays', async () => {
    const { dir, file } = scratch();
    // Opened before the write, as an editor or a build step reading the file would be.
    const reader = openSync(file, 'r');
    try {
      const result = await run('introspect', 'demo', '--out', file);
      expect(result).toMatchObject({ code: 0, out: '', err: `wrote ${file} (${Buffer.byteLength(sdl)} bytes)` });
      expect(readFileSync(file, 'utf8')).toBe(sdl);
      // Truncating and rewriting in place would show the new bytes (or none) through this descriptor.
      const buffer = Buffer.alloc(OLD.length + 16);
      expect(buffer.subarray(0, readSync(reader, buffer, 0, buffer.length, 0)).toString('utf8')).toBe(OLD);
    } finally {
      closeSync(reader);
    }
    expect(readdirSync(dir)).toEqual(['graph.graphql']);
  });

  it('while a server holds the store: a clear error and a way round it, and the file is left as it was', async () => {
    const { dir, file } = scratch();
    const server = await openGraphEngine(resolveConfig({ flags: { dataDir, persistence: 'file' } }).values, silentLogger(), { seed: false });
    try {
      const result = await run('introspect', 'demo', '--out', file);
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/^toolgraph: TG_STORAGE_FAILED: The data directory is locked by process \d+ on /);
      expect(result.err).toContain('\ntoolgraph: a running server holds this store: ask it instead (Cypher through POST /dispatch, the SDL as `{ _service { sdl } }` at /graphql/GRAPH), or stop it (Ctrl-C) and run this again');
    } finally {
      await server.close();
    }
    expect(readFileSync(file, 'utf8')).toBe(OLD);
    expect(readdirSync(dir)).toEqual(['graph.graphql']);
  });

  it('a graph that does not exist leaves the file as it was; a place it cannot write is named', async () => {
    const { dir, file } = scratch();
    const missing = await run('introspect', 'nope', '--out', file);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('TG_GRAPH_NOT_FOUND');
    expect(readFileSync(file, 'utf8')).toBe(OLD);
    const nowhere = join(dir, 'no-such-dir', 'graph.graphql');
    expect(await run('introspect', 'demo', '--out', nowhere)).toMatchObject({ code: 1, err: `toolgraph: TG_BAD_REQUEST: --out ${nowhere}: cannot be written (ENOENT); nothing was written.` });
    expect(readdirSync(dir)).toEqual(['graph.graphql']);
  });
});
