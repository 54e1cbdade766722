// `npm run bench -- pipelining`: the fragment fast path's two candidate clients on the same work (issue 19,
// finding 8): toolgraph's hand-written HTTP/1.1 pipelining client over raw sockets (fetchPipelined)
// against undici's Pool with `pipelining` (fetchPipelinedUndici, the ecosystem's client), both fetching
// the 4096 fragments (16 MiB) of the catalogue benchmark's schema from a real catalogue server in a child
// process, with the schema client's defaults (2 sockets, 16 requests in flight). Taking turns A B A B
// for --rounds rounds after one warm-up each; every run must deliver every fragment, byte-exact.
// Usage: node scripts/bench/pipelining.ts [--rounds N] [--out FILE]
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { DEFAULT_CONCURRENCY, fragmentLength } from '../../src/manifest/index.ts';
import { DEFAULT_PIPELINE_SOCKETS } from '../../src/manifest/client/schema-client.ts';
import { fetchPipelined, type PipelineOptions } from '../../src/manifest/client/pipelined-fragments.ts';
import { fetchPipelinedUndici } from './undici-fragments.ts';
import { startCatalogueServer } from './catalogue-server-process.ts';
import { arg } from './bench-args.ts';
import { median, printTable } from './bench-stats.ts';

const ROUNDS = Math.max(5, Number(arg('--rounds') ?? 7));
const OUT = arg('--out');

const { child, origin, manifest } = await startCatalogueServer();
const prefix = manifest.fragment_uri_template.slice(origin.length).replace('{index}', '');

async function once(client: (options: PipelineOptions) => Promise<unknown[]>): Promise<number> {
  const document = Buffer.alloc(manifest.schema_bytes);
  let stored = 0;
  const start = performance.now();
  const leftovers = await client({
    origin, count: manifest.fragment_count, document,
    target: (index) => `${prefix}${index}`,
    length: (index) => fragmentLength(manifest.schema_bytes, index),
    offset: (index) => index * 4096,
    sockets: DEFAULT_PIPELINE_SOCKETS, depth: DEFAULT_CONCURRENCY / DEFAULT_PIPELINE_SOCKETS,
    onFragment: () => { stored++; },
  });
  const ms = performance.now() - start;
  const digest = createHash('sha256').update(document).digest('hex');
  if (leftovers.length > 0 || stored !== manifest.fragment_count || digest !== manifest.schema_sha256) {
    throw new Error(`incomplete: ${leftovers.length} leftovers, ${stored} stored, digest ${digest === manifest.schema_sha256 ? 'ok' : 'wrong'}`);
  }
  return ms;
}

try {
  await once(fetchPipelined);
  await once(fetchPipelinedUndici);
  const raw: number[] = [];
  const undici: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      raw.push(await once(fetchPipelined));
      undici.push(await once(fetchPipelinedUndici));
    } else {
      undici.push(await once(fetchPipelinedUndici));
      raw.push(await once(fetchPipelined));
    }
  }
  const ratios = undici.map((u, i) => u / raw[i]!);
  const f = (n: number) => n.toFixed(1);
  process.stdout.write(`4096 fragments (${manifest.schema_bytes} bytes), ${DEFAULT_PIPELINE_SOCKETS} sockets × ${DEFAULT_CONCURRENCY / DEFAULT_PIPELINE_SOCKETS} in flight, ${ROUNDS} alternating rounds\n`);
  printTable([
    ['client', 'min ms', 'median ms'],
    ['fetchPipelined (raw sockets)', f(Math.min(...raw)), f(median(raw))],
    ['undici Pool({ pipelining })', f(Math.min(...undici)), f(median(undici))],
    ['ratio undici / raw', Math.min(...ratios).toFixed(2), median(ratios).toFixed(2)],
  ]);
  if (OUT) await writeFile(OUT, JSON.stringify({ rounds: ROUNDS, rawMs: raw, undiciMs: undici }, null, 2));
} finally {
  child.stdin.end();
}
