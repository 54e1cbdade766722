import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolgraphError } from '../../../src/errors/index.ts';
import { GraphEngine, type LogRecord } from '../../../src/graph/engine/index.ts';
import { IMPORT_BATCH_SIZE, importJsonlFile, type ImportProgress } from '../../../src/graph/jsonl/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { openEngine } from '../engine/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-import-'));
let files = 0;

function fileOf(lines: readonly (string | object)[], ending = '\n'): string {
  const path = join(dir, `f${++files}.jsonl`);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join(ending));
  return path;
}

const node = (i: number, props: object = { n: i }) => ({ label: 'P', id: `n${i}`, props });
const edge = (a: number, b: number) => ({ src: `n${a}`, tgt: `n${b}`, type: 'K' });

const existing = { label: 'P', id: 'old', props: { n: 0 } };

/** `count` node lines n1…n<count>. */
const nodes = (count: number, props?: (i: number) => object) => Array.from({ length: count }, (_, i) => node(i + 1, props?.(i + 1)));

async function graphWith(...lines: object[]): Promise<GraphEngine> {
  const engine = await openEngine();
  await engine.createGraph('g');
  if (lines.length > 0) await importJsonlFile(engine, 'g', fileOf(lines));
  return engine;
}

/** Fails the Nth batch append (1-based) of graph g with a storage error, like a full disk would. */
class FailingPersistence extends MemoryPersistence {
  failAt: number;
  batches = 0;
  constructor(failAt: number) {
    super();
    this.failAt = failAt;
  }
  override async append(record: LogRecord): Promise<void> {
    if (record.kind === 'batch' && ++this.batches === this.failAt) throw new Error('disk full');
    return super.append(record);
  }
}

describe('importJsonlFile: a bad file changes nothing', () => {
  it('bad JSON on line 7000 of 12,000 commits nothing, says so, and a fixed re-run imports everything', async () => {
    const engine = await graphWith();
    const lines: (string | object)[] = nodes(12_000);
    lines[6999] = '{"label": "P", "id": ';
    const path = fileOf(lines);
    const error = await importJsonlFile(engine, 'g', path).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TG_BAD_REQUEST', message: expect.stringMatching(new RegExp(`^${path}:7000: not valid JSON .*Nothing was imported\\.$`)) });
    expect((error as ToolgraphError).details).toMatchObject({ line: 7000, committedRecords: 0 });
    expect(engine.view('g')).toMatchObject({ version: 0, nodeCount: 0 });

    lines[6999] = node(7000);
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n'));
    const outcome = await importJsonlFile(engine, 'g', path);
    expect(outcome).toEqual({ records: 12_000, nodes: 12_000, edges: 0, skipped: 0, batches: 3, version: 3 });
    expect(engine.view('g').nodeCount).toBe(12_000);
  });

  it('--create with a bad file leaves no graph behind', async () => {
    const engine = await openEngine();
    const path = fileOf([...nodes(6000), '[1, 2]']);
    await expect(importJsonlFile(engine, 'fresh', path, { create: true })).rejects.toMatchObject({ code: 'TG_BAD_REQUEST', message: expect.stringContaining(`${path}:6001: expected a node`) });
    expect(engine.hasGraph('fresh')).toBe(false);
  });

  it.each([
    ['a node id twice in the file', () => [...nodes(5), node(6), node(3)], 'TG_NODE_EXISTS', ':7: node id "n3" appears twice in the file (first at line 3).'],
    ['a node id the graph already has', () => [existing, node(1)], 'TG_NODE_EXISTS', ':1: a node with id "old" already exists in graph "g"; to finish an import that stopped part-way, import again with --resume.'],
    ['an edge to a node neither in the file nor in the graph', () => [node(2), { src: 'old', tgt: 'n2', type: 'K' }, edge(2, 3)], 'TG_NODE_NOT_FOUND', ':3: tgt: no node has id "n3", neither in the file nor in graph "g".'],
    ['a type clash within the file, batches apart', () => [...nodes(IMPORT_BATCH_SIZE + 10), { label: 'P', id: 'x', props: { n: 'seven' } }], 'TG_VALUE_INVALID', `:${IMPORT_BATCH_SIZE + 11}: props.n: property "n" of label P is Int (fixed by its first write; only Int widens to Float); got String "seven".`],
    ['a type clash with the graph', () => [{ label: 'Q', id: 'q1', props: { n: 1.5 } }, { label: 'P', id: 'p', props: { n: true } }], 'TG_VALUE_INVALID', ':2: props.n: property "n" of label P is Int (fixed by its first write; only Int widens to Float); got Boolean true.'],
    ['an empty list as the first value of a new property', () => [{ label: 'P', id: 'p', props: { tags: [] } }], 'TG_VALUE_INVALID', ':1: props.tags: an empty list cannot fix the type'],
    ['an unsafe integer', () => [node(7), { label: 'P', id: 'p', props: { big: 2 ** 60 } }], 'TG_VALUE_INVALID', ':2: props.big: expected an integer between'],
  ])('finds %s before the first commit', async (_name, lines, code, message) => {
    const engine = await graphWith(existing);
    const path = fileOf(lines());
    const error = await importJsonlFile(engine, 'g', path).catch((e: unknown) => e);
    expect(error).toMatchObject({ code, message: expect.stringContaining(`${path}${message}`) });
    expect((error as Error).message).toMatch(/Nothing was imported\.$/);
    expect(engine.view('g')).toMatchObject({ version: 1, nodeCount: 1 });
  });

  it('accepts what the engine accepts: Int values into a Float property, edges before their nodes', async () => {
    const engine = await graphWith({ label: 'P', id: 'n0', props: { n: 0.5 } });
    const path = fileOf([edge(IMPORT_BATCH_SIZE + 1, 1), edge(0, 2), ...nodes(IMPORT_BATCH_SIZE + 1), { label: 'P', id: 'f', props: { n: 2.5 } }]);
    const outcome = await importJsonlFile(engine, 'g', path);
    expect(outcome).toMatchObject({ records: IMPORT_BATCH_SIZE + 4, nodes: IMPORT_BATCH_SIZE + 2, edges: 2, batches: 2 });
    expect(engine.view('g').edgeCount).toBe(2);
    expect(engine.view('g').catalogue.labels).toEqual([{ label: 'P', properties: { n: 'Float' } }]);
  });
});

describe('importJsonlFile: a batch that still fails', () => {
  it('says where it stopped and what was committed in which batches; --resume finishes the import', async () => {
    const persistence = new FailingPersistence(3);
    const engine = await GraphEngine.open({ persistence });
    await engine.createGraph('g');
    const path = fileOf([...nodes(12_000), edge(1, 2)]);
    const error = await importJsonlFile(engine, 'g', path).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'TG_STORAGE_FAILED',
      message: `${path}:10001: Could not store version 3 of graph "g"; nothing was changed. The import stopped there: 10000 of 12001 records were committed, in batches 1-2 (graph versions 1-2); the rest were not. Fix the cause, then import again with --resume to add the rest (records already in the graph are skipped).`,
      details: { line: 10_001, committedRecords: 10_000, committedBatches: 2, fromVersion: 1, toVersion: 2 },
    });
    expect(engine.view('g').nodeCount).toBe(10_000);

    // Without --resume the nodes already there are refused before anything is committed.
    persistence.failAt = 0;
    await expect(importJsonlFile(engine, 'g', path)).rejects.toMatchObject({ code: 'TG_NODE_EXISTS', message: expect.stringContaining(`${path}:1: a node with id "n1" already exists`) });
    const outcome = await importJsonlFile(engine, 'g', path, { resume: true });
    expect(outcome).toEqual({ records: 2001, nodes: 2000, edges: 1, skipped: 10_000, batches: 1, version: 3 });
    expect(engine.view('g')).toMatchObject({ nodeCount: 12_000, edgeCount: 1 });
  });

  it('--resume refuses a node the graph holds with other properties', async () => {
    const engine = await graphWith(node(1, { n: 2 }));
    const path = fileOf([node(1)]);
    await expect(importJsonlFile(engine, 'g', path, { resume: true })).rejects.toMatchObject({
      code: 'TG_NODE_EXISTS', message: `${path}:1: a node with id "n1" already exists in graph "g" with other properties, so --resume cannot skip it. Nothing was imported.`,
    });
  });

  it('a concurrent writer taking an id after the check stops the later batch, naming its line', async () => {
    const engine = await graphWith();
    const path = fileOf(nodes(12_000));
    let raced = false;
    const onProgress = (p: ImportProgress) => {
      if (p.phase === 'commit' && !raced) {
        raced = true;
        void engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'n11000', label: 'P' }] });
      }
    };
    const error = await importJsonlFile(engine, 'g', path, { onProgress }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'TG_NODE_EXISTS',
      message: expect.stringMatching(new RegExp(`^${path}:11000: a node with id "n11000" already exists in graph "g"\\. The import stopped there: 10000 of 12000 records were committed, in batches 1-2 \\(graph versions \\d-\\d\\); the rest were not\\. Fix the cause, then import again with --resume`)),
    });
  });

  it('--create drops the graph it created when a later batch fails', async () => {
    const engine = await GraphEngine.open({ persistence: new FailingPersistence(2) });
    const path = fileOf(nodes(6000));
    const error = await importJsonlFile(engine, 'g', path, { create: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'TG_STORAGE_FAILED',
      message: expect.stringContaining('5000 of 6000 records were committed, in batches 1-1 (graph versions 1-1); the rest were not. Graph "g", which this import created, was dropped again, so nothing is left of it.'),
      details: { graphDropped: true },
    });
    expect(engine.hasGraph('g')).toBe(false);
  });
});

describe('importJsonlFile: files and lines', () => {
  const socketPath = join(dir, 'sock');
  const socket = createServer();
  beforeAll(() => new Promise<void>((resolve) => socket.listen(socketPath, resolve)));
  afterAll(() => new Promise<void>((resolve) => socket.close(() => resolve())));

  it('counts records, not blank lines; reads CRLF, a byte-order mark and a last line without newline', async () => {
    const engine = await graphWith();
    const path = join(dir, 'crlf.jsonl');
    writeFileSync(path, `\uFEFF${JSON.stringify(node(1))}\r\n\r\n   \r\n${JSON.stringify(node(2))}\r\n${JSON.stringify(edge(1, 2))}`);
    expect(await importJsonlFile(engine, 'g', path)).toEqual({ records: 3, nodes: 2, edges: 1, skipped: 0, batches: 1, version: 1 });
  });

  it('a file of blank lines commits nothing', async () => {
    const engine = await graphWith();
    expect(await importJsonlFile(engine, 'g', fileOf(['', '  ', '']))).toEqual({ records: 0, nodes: 0, edges: 0, skipped: 0, batches: 0, version: 0 });
  });

  it('refuses bytes that are not UTF-8, naming the line', async () => {
    const engine = await graphWith();
    const path = join(dir, 'latin1.jsonl');
    writeFileSync(path, Buffer.concat([Buffer.from(`${JSON.stringify(node(1))}\n{"label":"P","id":"caf`), Buffer.from([0xe9]), Buffer.from('"}\n')]));
    await expect(importJsonlFile(engine, 'g', path)).rejects.toMatchObject({ code: 'TG_BAD_REQUEST', message: `${path}:2: not valid UTF-8. Nothing was imported.` });
  });

  it('reads lines that span many read chunks, with characters split across chunk boundaries', async () => {
    const engine = await graphWith();
    // 3-byte characters over 1 MiB chunks: some chunk boundary falls inside a character.
    const long = '€'.repeat(1024 * 1024);
    const path = fileOf([node(1), { label: 'P', id: 'long', props: { text: long } }, ...nodes(40_000).slice(1)]);
    const outcome = await importJsonlFile(engine, 'g', path);
    expect(outcome.records).toBe(40_001);
    expect(engine.view('g').node('long')?.props['text']).toBe(long);

    // A bad byte in a later chunk, after the long line, is still found and named.
    const bad = join(dir, 'late-bad.jsonl');
    writeFileSync(bad, Buffer.concat([Buffer.from(`${JSON.stringify({ label: 'P', id: 'long', props: { text: long } })}\n${JSON.stringify(node(1))}\n{"label":"P","id":"x`), Buffer.from([0xff]), Buffer.from('"}\n')]));
    const other = await graphWith();
    await expect(importJsonlFile(other, 'g', bad)).rejects.toMatchObject({ code: 'TG_BAD_REQUEST', message: `${bad}:3: not valid UTF-8. Nothing was imported.` });
  });

  it.each([
    ['a missing file', () => join(dir, 'missing.jsonl'), 'does not exist.'],
    ['a directory', () => {
      const d = join(dir, 'a-dir');
      mkdirSync(d, { recursive: true });
      return d;
    }, 'is a directory'],
    ['a socket, which cannot be opened for reading', () => socketPath, 'cannot be read (ENXIO).'],
  ])('%s is TG_FILE_UNREADABLE naming it', async (_name, pathOf, reason) => {
    const engine = await graphWith();
    const path = pathOf();
    await expect(importJsonlFile(engine, 'g', path)).rejects.toMatchObject({ code: 'TG_FILE_UNREADABLE', message: expect.stringContaining(`${path} ${reason}`) });
  });

  it('reports progress: the check pass, then the commit pass, up to the file size', async () => {
    const engine = await graphWith();
    const path = fileOf(nodes(100));
    const seen: ImportProgress[] = [];
    await importJsonlFile(engine, 'g', path, { onProgress: (p) => seen.push(p) });
    expect(seen.map((p) => p.phase)).toEqual(['check', 'commit']);
    expect(seen.every((p) => p.bytes === p.totalBytes && p.totalBytes > 0)).toBe(true);
  });
});
