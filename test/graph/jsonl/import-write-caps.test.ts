import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_WRITE_LIMITS, type GraphEngine, type WriteLimits } from '../../../src/graph/engine/index.ts';
import { IMPORT_BATCH_SIZE, importJsonlFile } from '../../../src/graph/jsonl/index.ts';
import { openEngine } from '../engine/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-import-caps-'));
let files = 0;
const engines: GraphEngine[] = [];

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function fileOf(lines: readonly object[]): string {
  const path = join(dir, `f${++files}.jsonl`);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n'));
  return path;
}

async function cappedGraph(writeLimits: WriteLimits): Promise<GraphEngine> {
  const engine = await openEngine({ writeLimits });
  engines.push(engine);
  await engine.createGraph('g');
  return engine;
}

/** `count` nodes with `props` properties each. */
const nodes = (count: number, props: number, text = 'v') => Array.from({ length: count }, (_, i) => ({
  label: 'P', id: `n${i}`, props: Object.fromEntries(Array.from({ length: props }, (_v, k) => [`k${k}`, `${text}${k}`])),
}));

describe('importJsonlFile under the engine write caps', () => {
  it('imports a batch of 5000 records of up to three properties whole under the default caps', async () => {
    const engine = await cappedGraph(DEFAULT_WRITE_LIMITS);
    const outcome = await importJsonlFile(engine, 'g', fileOf(nodes(IMPORT_BATCH_SIZE, 3)));
    expect(outcome).toMatchObject({ records: IMPORT_BATCH_SIZE, batches: 1 });
  });

  it('cuts its batches so each fits the change cap', async () => {
    // 5000 records of 19 properties are 100,000 changes: five batches of 20,000, not one of 5000 records.
    const engine = await cappedGraph(DEFAULT_WRITE_LIMITS);
    const outcome = await importJsonlFile(engine, 'g', fileOf(nodes(IMPORT_BATCH_SIZE, 19)));
    expect(outcome).toMatchObject({ records: IMPORT_BATCH_SIZE, batches: 5 });
    expect(engine.view('g').nodeCount).toBe(IMPORT_BATCH_SIZE);
  });

  it('cuts its batches so each log record fits the size cap', async () => {
    const engine = await cappedGraph({ maxChanges: DEFAULT_WRITE_LIMITS.maxChanges, maxBatchBytes: 64 * 1024 });
    // About 1.1 KiB a record: 200 records are more than three 64 KiB batches.
    const outcome = await importJsonlFile(engine, 'g', fileOf(nodes(200, 1, 'x'.repeat(1000))));
    expect(outcome.records).toBe(200);
    expect(outcome.batches).toBe(4);
  });

  it('refuses a record that alone is over a cap, naming its line and the setting', async () => {
    const engine = await cappedGraph({ maxChanges: DEFAULT_WRITE_LIMITS.maxChanges, maxBatchBytes: 4096 });
    const path = fileOf([...nodes(3, 1), { label: 'P', id: 'big', props: { body: 'x'.repeat(5000) } }]);
    await expect(importJsonlFile(engine, 'g', path)).rejects.toMatchObject({
      code: 'TG_WRITE_TOO_LARGE',
      details: expect.objectContaining({ limit: 'maxBatchBytes', max: 4096, setting: 'TOOLGRAPH_WRITE_MAX_BATCH_BYTES', committedRecords: 3 }),
      message: expect.stringContaining(`${path}:4:`),
    });
  });
});
