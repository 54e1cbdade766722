/**
 * Persistence benchmark: committed batches per second through each durable adapter, against the floor
 * of the same storage used directly, in the same run.
 * - file: FilePersistence.append against `fs` writing the same framed bytes with one write + fdatasync
 *   per batch. Serial (one writer, each append awaited, as the engine does per graph) and with 16 graphs
 *   writing at once (where the adapter's group commit shares one fdatasync among waiting batches).
 * - postgres: PostgresPersistence.append against plain INSERTs of the same rows through `pg` (one
 *   autocommit INSERT per batch), serial and 16 at once over pools of the same size, taking turns in
 *   10 rounds so that other load on the machine falls on both alike.
 * Usage: node scripts/bench/persist.ts [--batches N] [--dir DIR] [--out FILE]
 * PostgreSQL rows need TEST_DATABASE_URL or DATABASE_URL; without one they are skipped with a message.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { CommittedBatch } from '../../src/graph/engine/index.ts';
import { encodeFrame, FilePersistence } from '../../src/graph/persist/file/index.ts';
import type { LogRecord, PersistenceAdapter } from '../../src/graph/engine/index.ts';
import { PostgresPersistence } from '../../src/graph/persist/postgres/index.ts';
import { arg } from './bench-args.ts';


const BATCHES = Number(arg('--batches') ?? 2000);
const BASE_DIR = arg('--dir') ?? tmpdir();
const OUT = arg('--out');
const DATABASE_URL = process.env['TEST_DATABASE_URL'] || process.env['DATABASE_URL'] || undefined;
const WRITERS = 16;
/** PostgreSQL adapter and peer take turns this many times (the machine may be busy with other work). */
const ROUNDS = 10;
const AT = '2026-11-22T00:00:00.000Z';

interface Row {
  adapter: string;
  workload: string;
  batches: number;
  batchesPerSecond: number;
  peer: string;
  peerBatchesPerSecond: number;
  ratio: number;
}

/** A typical small batch: a node with a handful of properties and an edge to its predecessor. */
function batchOf(graph: string, version: number): CommittedBatch {
  return {
    graph, version, committedAt: AT,
    mutations: [
      { op: 'createNode', id: `${graph}-${version}`, label: 'Event', props: { seq: version, kind: 'click', score: 0.5, tags: ['a', 'b'], note: 'x'.repeat(64) } },
      ...(version > 1 ? [{ op: 'addEdge' as const, src: `${graph}-${version}`, tgt: `${graph}-${version - 1}`, type: 'NEXT' }] : []),
    ],
  };
}

const graphName = (w: number): string => `g${w}`;

/** Writes `perWriter` batches on each of `writers` graphs, each graph strictly in order; batches per second. */
async function drive(writers: number, perWriter: number, write: (graph: string, version: number) => Promise<void>, firstVersion = 1): Promise<number> {
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: writers }, async (_v, w) => {
    for (let v = firstVersion; v < firstVersion + perWriter; v++) await write(graphName(w), v);
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return (writers * perWriter) / seconds;
}

/**
 * Runs adapter and peer in alternating rounds, so that load from other processes on the machine
 * falls on both alike; returns each side's batches per second over all its rounds.
 */
async function alternate(writers: number, perWriter: number, rounds: number,
  adapter: (graph: string, version: number) => Promise<void>, peer: (graph: string, version: number) => Promise<void>): Promise<[number, number]> {
  const perRound = Math.max(1, Math.floor(perWriter / rounds));
  let adapterSeconds = 0;
  let peerSeconds = 0;
  for (let r = 0; r < rounds; r++) {
    const first = 1 + r * perRound;
    adapterSeconds += (writers * perRound) / await drive(writers, perRound, adapter, first);
    peerSeconds += (writers * perRound) / await drive(writers, perRound, peer, first);
  }
  return [(writers * perRound * rounds) / adapterSeconds, (writers * perRound * rounds) / peerSeconds];
}

async function prepare(adapter: PersistenceAdapter, writers: number): Promise<void> {
  await adapter.load();
  for (let w = 0; w < writers; w++) await adapter.append({ kind: 'createGraph', graph: graphName(w), version: 0, at: AT });
}

async function benchFile(writers: number, workload: string): Promise<Row> {
  const perWriter = Math.max(1, Math.floor(BATCHES / writers));
  const dir = await mkdtemp(join(BASE_DIR, 'tg-bench-file-'));
  try {
    const adapter = await FilePersistence.open({ directory: join(dir, 'graphs') });
    await prepare(adapter, writers);
    const adapterRate = await drive(writers, perWriter, (graph, version) => adapter.append({ kind: 'batch', batch: batchOf(graph, version) }));
    await adapter.close();

    // The floor: the same framed bytes, appended by hand, one write and one fdatasync per batch.
    const path = join(dir, 'plain.log');
    await writeFile(path, '');
    const handle = await open(path, 'r+');
    let position = 0;
    let chain = Promise.resolve();
    const peerRate = await drive(writers, perWriter, (graph, version) => {
      const record: LogRecord = { kind: 'batch', batch: batchOf(graph, version) };
      const frame = encodeFrame(Buffer.from(JSON.stringify(record)));
      // One file, one writer at a time, as any single log must be.
      chain = chain.then(async () => {
        await handle.write(frame, 0, frame.length, position);
        position += frame.length;
        await handle.datasync();
      });
      return chain;
    });
    await handle.close();
    return row('file', workload, writers * perWriter, adapterRate, 'fs write + fdatasync per batch', peerRate);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function benchPostgres(writers: number, workload: string): Promise<Row> {
  const perWriter = Math.max(1, Math.floor(BATCHES / writers));
  const schema = `tg_bench_${randomBytes(4).toString('hex')}`;
  const poolSize = Math.min(writers, 10);
  const adapter = new PostgresPersistence({ connectionString: DATABASE_URL!, schema, maxConnections: poolSize });
  const plain = new pg.Pool({ connectionString: DATABASE_URL!, max: poolSize });
  try {
    await prepare(adapter, writers);
    await plain.query(`CREATE TABLE "${schema}".plain_batches (graph text NOT NULL, version bigint NOT NULL, mutations json NOT NULL, committed_at text NOT NULL, PRIMARY KEY (graph, version))`);
    const [adapterRate, peerRate] = await alternate(writers, perWriter, ROUNDS,
      (graph, version) => adapter.append({ kind: 'batch', batch: batchOf(graph, version) }),
      async (graph, version) => {
        const batch = batchOf(graph, version);
        await plain.query(`INSERT INTO "${schema}".plain_batches (graph, version, mutations, committed_at) VALUES ($1, $2, $3::json, $4)`,
          [graph, version, JSON.stringify(batch.mutations), batch.committedAt]);
      });
    const done = writers * Math.max(1, Math.floor(perWriter / ROUNDS)) * ROUNDS;
    return row('postgres', workload, done, adapterRate, 'pg plain INSERT per batch', peerRate);
  } finally {
    await adapter.close();
    await plain.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await plain.end();
  }
}

function row(adapter: string, workload: string, batches: number, rate: number, peer: string, peerRate: number): Row {
  return { adapter, workload, batches, batchesPerSecond: Math.round(rate), peer, peerBatchesPerSecond: Math.round(peerRate), ratio: Number((rate / peerRate).toFixed(2)) };
}

function printTable(rows: readonly Row[]): void {
  const head = ['adapter', 'workload', 'batches', 'batches/s', 'peer', 'peer batches/s', 'ratio'];
  const cells = rows.map((r) => [r.adapter, r.workload, String(r.batches), String(r.batchesPerSecond), r.peer, String(r.peerBatchesPerSecond), r.ratio.toFixed(2)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${cells.map(line).join('\n')}\n`);
}

const rows: Row[] = [];
rows.push(await benchFile(1, 'serial, 1 graph'));
rows.push(await benchFile(WRITERS, `${WRITERS} graphs at once`));
let skipped: string | undefined;
if (DATABASE_URL) {
  rows.push(await benchPostgres(1, 'serial, 1 graph'));
  rows.push(await benchPostgres(WRITERS, `${WRITERS} graphs at once`));
} else {
  skipped = 'PostgreSQL rows skipped: set TEST_DATABASE_URL or DATABASE_URL to measure them.';
}
printTable(rows);
process.stdout.write('ratio = adapter batches/s ÷ peer batches/s (higher is better; > 1 means faster than the naive floor)\n');
if (skipped) process.stdout.write(`${skipped}\n`);
if (OUT) {
  await writeFile(OUT, `${JSON.stringify({ bench: 'persist', batches: BATCHES, rows, ...(skipped ? { skipped } : {}) }, null, 2)}\n`);
}
