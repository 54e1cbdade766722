import { mkdtempSync } from 'node:fs';
import { readFile, readdir, rename, rm, truncate, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { GraphEngine } from '../../src/graph/engine/index.ts';
import { FRAME_HEADER_BYTES, FilePersistence } from '../../src/graph/persist/file/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { captureLogger } from '../support/capture-logger.ts';

/**
 * Issue 15, item 8: storage says when acknowledged data is gone. Each case damages a file store the
 * way an operator, a disk or a backup tool might, then starts toolgraph through its real start path
 * (startToolgraph, and the CLI for the flag): it must refuse, naming the file and what was expected
 * against what the log holds, and start with TOOLGRAPH_ACCEPT_DATA_LOSS, logging what was lost. A torn
 * tail (what a crash leaves) still recovers on its own.
 */

const dirs: string[] = [];
let running: RunningToolgraph | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tg-acked-loss-'));
  dirs.push(dir);
  return dir;
}

const logDir = (dataDir: string): string => join(dataDir, 'graphs');

interface Commit { graph: string; pad?: number }

/** Writes the store through the real engine and file adapter; returns each graph's acknowledged version. */
async function build(dataDir: string, options: { segmentBytes?: number; snapshotEvery?: number }, commits: readonly Commit[]): Promise<Map<string, number>> {
  const persistence = await FilePersistence.open({ directory: logDir(dataDir), ...(options.segmentBytes ? { segmentBytes: options.segmentBytes } : {}) });
  const engine = await GraphEngine.open({ persistence, snapshotEvery: options.snapshotEvery ?? 0 });
  const acked = new Map<string, number>();
  for (const { graph, pad } of commits) {
    if (!engine.hasGraph(graph)) await engine.createGraph(graph);
    const n = (acked.get(graph) ?? 0) + 1;
    const result = await engine.commit({ graph, mutations: [{ op: 'createNode', id: `${graph}${n}`, label: 'Item', props: { n, pad: 'x'.repeat(pad ?? 100) } }] });
    acked.set(graph, result.version);
  }
  await engine.close();
  return acked;
}

const times = (n: number, graph: string, pad?: number): Commit[] => Array.from({ length: n }, () => (pad === undefined ? { graph } : { graph, pad }));

async function segments(dataDir: string): Promise<string[]> {
  return (await readdir(logDir(dataDir))).filter((n) => /^wal-\d{16}\.log$/.test(n)).sort();
}

/** Each frame of a segment: where it starts and the batch version it holds, if a batch. */
async function frames(path: string): Promise<{ at: number; graph?: string; version?: number }[]> {
  const buf = await readFile(path);
  const out: { at: number; graph?: string; version?: number }[] = [];
  for (let at = 0; at + FRAME_HEADER_BYTES <= buf.length; at += FRAME_HEADER_BYTES + buf.readUInt32LE(at)) {
    const record = JSON.parse(buf.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + buf.readUInt32LE(at)).toString('utf8')) as
      { kind: string; batch?: { graph: string; version: number } };
    out.push(record.batch ? { at, graph: record.batch.graph, version: record.batch.version } : { at });
  }
  return out;
}

async function frameOf(path: string, graph: string, version: number): Promise<{ at: number }> {
  const found = (await frames(path)).find((f) => f.graph === graph && f.version === version);
  if (!found) throw new Error(`no batch ${graph} v${version} in ${path}`);
  return found;
}

async function swap(dir: string, a: string, b: string): Promise<void> {
  await rename(join(dir, a), join(dir, 'swapping'));
  await rename(join(dir, b), join(dir, a));
  await rename(join(dir, 'swapping'), join(dir, b));
}

/** Every file of the log directory with its bytes, to show a refusal changed nothing. */
async function contents(dataDir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(logDir(dataDir))).sort()) {
    if (name === 'LOCK') continue;
    out[name] = (await readFile(join(logDir(dataDir), name))).toString('base64');
  }
  return out;
}

function config(dataDir: string, env: Record<string, string> = {}) {
  return resolveConfig({ env: { HOME: dataDir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'file', TOOLGRAPH_DATA_DIR: dataDir, ...env } });
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<{ running: RunningToolgraph; lines: string[] }> {
  const { lines, logger } = captureLogger('warn');
  running = await startToolgraph({ config: config(dataDir, env), logger, only: ['graph'] });
  return { running, lines };
}

function versionOf(toolgraph: RunningToolgraph, graph: string): number | undefined {
  return toolgraph.engine!.listGraphs().find((g) => g.name === graph)?.version;
}

interface LossCase {
  /** What the operator (or the disk) did. */
  readonly name: string;
  /** Builds the store, damages it, and returns what the refusal and the accepting start must say. */
  readonly make: (dataDir: string) => Promise<{
    /** Parts of the refusal's message: the file and both positions. */
    refusal: (string | RegExp)[];
    /** Each graph's version once started anyway. */
    after: Record<string, number | undefined>;
    /** Parts of what the accepting start logs at error level. */
    logged: (string | RegExp)[];
  }>;
}

const CASES: LossCase[] = [
  {
    // The observed case, scaled down: snapshot at v40, acknowledged v60, the log cut mid-record before v40.
    name: 'a log cut mid-record behind the snapshot (one segment)',
    async make(dataDir) {
      expect((await build(dataDir, { snapshotEvery: 40 }, times(60, 'g'))).get('g')).toBe(60);
      const [segment] = await segments(dataDir);
      const path = join(logDir(dataDir), segment!);
      await truncate(path, (await frameOf(path, 'g', 30)).at + 20);
      return {
        refusal: ['snap-0000000000000001.snap holds graph "g" at version 40', /written when the log held records up to \d+/,
          `the log ends at record 30 in ${segment}, where "g" is at version 29`],
        after: { g: 40 },
        logged: [/accepted the loss of acknowledged records: snap-0000000000000001\.snap holds graph "g" at version 40/,
          `${segment}.from-byte-`],
      };
    },
  },
  {
    name: 'a clean cut at a record boundary behind the snapshot (last segment)',
    async make(dataDir) {
      await build(dataDir, { snapshotEvery: 40 }, times(60, 'g'));
      const [segment] = await segments(dataDir);
      const path = join(logDir(dataDir), segment!);
      await truncate(path, (await frameOf(path, 'g', 30)).at);
      return {
        refusal: ['snap-0000000000000001.snap holds graph "g" at version 40', `the log ends at record 30 in ${segment}, where "g" is at version 29`],
        after: { g: 40 },
        logged: [/records 31–\d+ marked lost/],
      };
    },
  },
  {
    // g's last batches end a middle segment (the big last batch fills it), h goes on in later segments.
    name: 'a clean cut at a record boundary in a middle segment',
    async make(dataDir) {
      await build(dataDir, { segmentBytes: 4096 }, [{ graph: 'h' }, ...times(19, 'g'), { graph: 'g', pad: 5000 }, ...times(20, 'h')]);
      const names = await segments(dataDir);
      let cutIn: string | undefined;
      for (const name of names.slice(0, -1)) if ((await frames(join(logDir(dataDir), name))).some((f) => f.graph === 'g' && f.version === 18)) cutIn = name;
      const path = join(logDir(dataDir), cutIn!);
      const next = names[names.indexOf(cutIn!) + 1]!;
      await truncate(path, (await frameOf(path, 'g', 18)).at);
      return {
        refusal: [`${cutIn} holds records`, '(the last one batch "g" v17)', `but the next segment, ${next}, starts at record ${Number(next.slice(4, 20))}`, 'are missing'],
        after: { g: 17, h: 1 },
        // g's v18–v20 were cut off the file itself; the next segments, with h's later batches, are set aside.
        logged: [`moved ${next}, `, '"h": batches v2–v21 (20)'],
      };
    },
  },
  {
    name: 'the last segment deleted',
    async make(dataDir) {
      await build(dataDir, { segmentBytes: 4096 }, times(55, 'g'));
      const names = await segments(dataDir);
      const last = names.at(-1)!;
      const before = names.at(-2)!;
      await unlink(join(logDir(dataDir), last));
      return {
        refusal: [`LOG-HEAD says the log went on into ${last}, which is missing`, `in ${before} (batch "g" v44)`, `every record from ${Number(last.slice(4, 20))} on is lost`],
        after: { g: 44 },
        logged: [`accepted the loss of acknowledged records: LOG-HEAD says the log went on into ${last}`],
      };
    },
  },
  {
    name: 'the names of the last two segments swapped',
    async make(dataDir) {
      await build(dataDir, { segmentBytes: 4096 }, times(60, 'g'));
      const names = await segments(dataDir);
      const [a, b] = names.slice(-2) as [string, string];
      await swap(logDir(dataDir), a, b);
      return {
        refusal: [`${a} was sealed holding records ${Number(a.slice(4, 20))}–${Number(b.slice(4, 20)) - 1}`, `${b} has exactly that size, so segment files were swapped or renamed`],
        after: { g: Number(a.slice(4, 20)) - 2 },
        logged: [`moved ${a}, ${b} into lost-`, '"g": batches v'],
      };
    },
  },
  {
    name: 'the names of the only two segments swapped',
    async make(dataDir) {
      await build(dataDir, { segmentBytes: 4096 }, times(20, 'g'));
      const [a, b] = await segments(dataDir) as [string, string];
      await swap(logDir(dataDir), a, b);
      return {
        refusal: [`${a} was sealed holding records 1–15`, 'the last one batch "g" v20', `${b} has exactly that size`],
        after: { g: undefined },
        logged: [`moved ${a}, ${b} into lost-`, '"g": batches v1–v20 (20), createGraph'],
      };
    },
  },
];

describe('hostile storage: acknowledged data that is gone', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: start-up refuses, naming the file and both positions, and changes nothing', async (_name, lossCase) => {
    const dataDir = newDataDir();
    const expected = await lossCase.make(dataDir);
    const before = await contents(dataDir);
    const refused = startToolgraph({ config: config(dataDir), logger: captureLogger('warn').logger, only: ['graph'] });
    await expect(refused).rejects.toMatchObject({ code: 'TG_STORAGE_DATA_LOST' });
    const message = await refused.then(() => '', (error: unknown) => (error as Error).message);
    for (const part of expected.refusal) expect(message).toMatch(typeof part === 'string' ? new RegExp(escapeRegExp(part)) : part);
    expect(message).toContain('--accept-data-loss (TOOLGRAPH_ACCEPT_DATA_LOSS=true)');
    expect(await contents(dataDir)).toEqual(before);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s: TOOLGRAPH_ACCEPT_DATA_LOSS starts anyway, logs what was lost, and the next start needs no flag', async (_name, lossCase) => {
    const dataDir = newDataDir();
    const expected = await lossCase.make(dataDir);
    const first = await start(dataDir, { TOOLGRAPH_ACCEPT_DATA_LOSS: 'true' });
    for (const [graph, version] of Object.entries(expected.after)) expect(versionOf(first.running, graph), graph).toBe(version);
    const errors = first.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'error').map((l) => l.msg).join('\n');
    expect(errors).toMatch(/started without acknowledged records \(--accept-data-loss/);
    for (const part of expected.logged) expect(errors).toMatch(typeof part === 'string' ? new RegExp(escapeRegExp(part)) : part);
    // What was cut off is kept beside the log, not deleted.
    const lost = (await readdir(logDir(dataDir))).filter((n) => n.startsWith('lost-'));
    expect(lost).toHaveLength(1);
    expect(await readdir(join(logDir(dataDir), lost[0]!))).toContain('lost.json');

    // Writing goes on, and the store now starts without the flag, with nothing to warn about.
    const engine = first.running.engine!;
    if (!engine.hasGraph('g')) await engine.createGraph('g');
    const written = await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'after-loss', label: 'Item', props: {} }] });
    await first.running.close();
    running = undefined;
    const second = await start(dataDir);
    expect(versionOf(second.running, 'g')).toBe(written.version);
    expect(second.running.engine!.view('g').node('after-loss')).toBeDefined();
    expect(second.lines).toEqual([]);
  });

  it('a torn tail (the last record cut short, as a crash leaves it) still recovers on its own, with a warning', async () => {
    const dataDir = newDataDir();
    await build(dataDir, { snapshotEvery: 40 }, times(60, 'g'));
    const [segment] = await segments(dataDir);
    const path = join(logDir(dataDir), segment!);
    const last = await frameOf(path, 'g', 60);
    await truncate(path, last.at + 30);
    const { running: started, lines } = await start(dataDir);
    expect(versionOf(started, 'g')).toBe(59);
    expect(lines.map((l) => JSON.parse(l) as { level: string; msg: string; droppedBytes?: number })).toEqual([
      expect.objectContaining({ level: 'warn', droppedBytes: 30, msg: 'dropped a torn tail of 30 bytes from the graph log (a write cut short by a crash)' }),
    ]);
    expect((await readdir(logDir(dataDir))).some((n) => n.startsWith('lost-'))).toBe(false);
  });

  it('the CLI refuses too, and takes --accept-data-loss', async () => {
    const dataDir = newDataDir();
    await build(dataDir, { segmentBytes: 4096 }, times(55, 'g'));
    await unlink(join(logDir(dataDir), (await segments(dataDir)).at(-1)!));
    const io = (): CliIo & { out: (l: string) => void; lines: string[] } => {
      const lines: string[] = [];
      return { lines, out: (l) => lines.push(l), err: (l) => lines.push(l) };
    };
    const refusedIo = io();
    expect(await runProgram(['graph', 'list', '--data-dir', dataDir], refusedIo)).toBe(1);
    expect(refusedIo.lines.join('\n')).toContain('TG_STORAGE_DATA_LOST');
    const acceptedIo = io();
    expect(await runProgram(['graph', 'list', '--json', '--data-dir', dataDir, '--accept-data-loss', '--log-level', 'fatal'], acceptedIo), acceptedIo.lines.join('\n')).toBe(0);
    expect(JSON.parse(acceptedIo.lines.join('\n'))).toEqual([expect.objectContaining({ name: 'g', version: 44 })]);
    expect(await runProgram(['graph', 'list', '--data-dir', dataDir, '--log-level', 'fatal'], io())).toBe(0);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
