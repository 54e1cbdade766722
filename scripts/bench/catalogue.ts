// Schema catalogue benchmark: node scripts/bench/catalogue.ts [--out FILE]
// 1. The generated (ajv standalone) SchemaManifest validator against ajv compiling the same schema at
//    run time: validations per second, and what the run-time compile costs.
// 2. `schema get` of a 16 MiB, 4096-fragment schema over loopback against the floor measured in the
//    same run on the same server: one 16 MiB GET plus SHA-256 of 16 MiB. Target: within 2x of the floor.
//    Each get downloads (pipelined unless said otherwise), verifies and writes the cache entry.
// The server runs in a child process so client and server each have a core, as they would in use.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { validateSchemaManifest } from '../../generated/validators/schema-manifest.ts';
import { startHost, type HttpService } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import {
  buildCatalogueEntriesStrict, canonicalJson, canonicalSchema, Catalogue, createCatalogueService, createSchemaClient, DEFAULT_CONCURRENCY, MAX_SCHEMA_BYTES,
  sha256Hex, toolActionSource, type JsonValue, type SchemaManifest,
} from '../../src/manifest/index.ts';
import { median } from './bench-stats.ts';
import { startCatalogueServer } from './catalogue-server-process.ts';

const args = process.argv.slice(2);

/** A 16 MiB canonical schema shaped like a real one: many properties with types and descriptions. */
function bigSource() {
  const properties: Record<string, JsonValue> = {};
  const size = () => canonicalSchema({ operation: 'bigSchema', input: { type: 'object', properties }, output: { type: 'object' } }).document.length;
  // Each property adds its own JCS length plus a comma; stop short, then pad one description so the
  // document is exactly 16 MiB (4096 full fragments).
  let estimate = size();
  for (let i = 0; estimate < MAX_SCHEMA_BYTES - 1000; i++) {
    const value = { type: i % 3 === 0 ? 'integer' : 'string', description: `Field number ${i} of the benchmark schema.` };
    properties[`field_${i}`] = value;
    estimate += canonicalJson({ [`field_${i}`]: value }).length - 1;
  }
  properties['zz_padding'] = { type: 'string', description: '' };
  properties['zz_padding'] = { type: 'string', description: 'p'.repeat(MAX_SCHEMA_BYTES - size()) };
  return toolActionSource('bench', [{ name: 'bigSchema', description: 'A 16 MiB benchmark schema', inputSchema: { type: 'object', properties }, outputSchema: { type: 'object' } }]);
}

async function serve(): Promise<void> {
  const catalogue = new Catalogue({ publicBaseUrl: 'http://127.0.0.1' });
  const source = bigSource();
  catalogue.putSource(source.name, buildCatalogueEntriesStrict(source));
  const [entry] = catalogue.entries();
  // The floor's peer: the same document in one response from the same host.
  const blob: HttpService = {
    name: 'blob',
    prefixes: ['/bench'],
    entryPath: '/bench/blob',
    handle(_req, res) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': entry!.document.length });
      res.end(entry!.document);
    },
  };
  const host = await startHost({ services: [createCatalogueService({ catalogue, logger: silentLogger() }), blob], logger: silentLogger(), host: '127.0.0.1', port: 0 });
  catalogue.setPublicBaseUrl(host.origin);
  process.stdout.write(`${JSON.stringify({ origin: host.origin, manifest: catalogue.manifestOf(entry!) })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void host.close().then(() => process.exit(0)));
}


function perSecond(fn: () => void, ms = 1000): number {
  for (let i = 0; i < 20_000; i++) fn();
  let count = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 10_000; i++) fn();
    count += 10_000;
    now = performance.now();
  }
  return (count / (now - start)) * 1000;
}

async function floorOnce(origin: string, agent: http.Agent): Promise<number> {
  const start = performance.now();
  const body = await new Promise<Buffer>((resolve, reject) => {
    http.get(`${origin}/bench/blob`, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    }).on('error', reject);
  });
  sha256Hex(body);
  return performance.now() - start;
}

async function main(): Promise<void> {
  const rows: { measure: string; value: string; peer: string; ratio: string }[] = [];
  const json: Record<string, unknown> = { node: process.version };

  // 1. Validators.
  const schema = JSON.parse(readFileSync(new URL('../../specs/schema-manifest.schema.json', import.meta.url), 'utf8')) as object;
  const compileStart = performance.now();
  const runtime = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  const compileMs = performance.now() - compileStart;
  const hex = 'ab'.repeat(32);
  const valid: SchemaManifest = {
    version: 1, operation: 'searchSchemas', alias: 'tool-server-searchschemas', source_sha256: hex, schema_sha256: hex,
    input_schema_sha256: hex, output_schema_sha256: hex, schema_bytes: 5000, fragment_count: 2,
    manifest_uri: `http://127.0.0.1:4000/schemas/${hex}`, fragment_uri_template: `http://127.0.0.1:4000/schemas/${hex}/fragments/{index}`,
  };
  const invalid = { ...valid, alias: '9bad', schema_bytes: 0 };
  if (!validateSchemaManifest(valid) || !runtime(valid) || validateSchemaManifest(invalid) || runtime(invalid)) throw new Error('validators disagree');
  const standaloneValid = perSecond(() => validateSchemaManifest(valid));
  const runtimeValid = perSecond(() => runtime(valid));
  const standaloneInvalid = perSecond(() => validateSchemaManifest(invalid));
  const runtimeInvalid = perSecond(() => runtime(invalid));
  rows.push({ measure: 'validate valid manifest (standalone)', value: `${(standaloneValid / 1e6).toFixed(2)} M/s`, peer: `${(runtimeValid / 1e6).toFixed(2)} M/s ajv run-time compile`, ratio: `${(standaloneValid / runtimeValid).toFixed(2)}x` });
  rows.push({ measure: 'validate invalid manifest (standalone)', value: `${(standaloneInvalid / 1e6).toFixed(2)} M/s`, peer: `${(runtimeInvalid / 1e6).toFixed(2)} M/s ajv run-time compile`, ratio: `${(standaloneInvalid / runtimeInvalid).toFixed(2)}x` });
  rows.push({ measure: 'ajv run-time compile (once per process)', value: `${compileMs.toFixed(1)} ms`, peer: '0 ms standalone (compiled at codegen)', ratio: '-' });
  json['validator'] = { standaloneValidPerSec: standaloneValid, runtimeValidPerSec: runtimeValid, standaloneInvalidPerSec: standaloneInvalid, runtimeInvalidPerSec: runtimeInvalid, runtimeCompileMs: compileMs };

  // 2. schema get against the floor.
  const { child, origin, manifest } = await startCatalogueServer();
  const cacheRoot = mkdtempSync(join(tmpdir(), 'tg-bench-'));
  const runs = 5;
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await floorOnce(origin, agent);
    const floor: number[] = [];
    for (let i = 0; i < runs; i++) floor.push(await floorOnce(origin, agent));
    agent.destroy();

    const concurrencies = [8, 16, 32];
    const gets: Record<number, number[]> = {};
    for (const concurrency of concurrencies) {
      gets[concurrency] = [];
      for (let i = -1; i < runs; i++) {
        // A fresh cache directory each time: every run downloads and verifies all 4096 fragments.
        const cacheDir = join(cacheRoot, `${concurrency}-${i}`);
        const client = createSchemaClient({ url: origin, cacheDir, concurrency });
        const start = performance.now();
        const fetched = await client.get(manifest.schema_sha256);
        const elapsed = performance.now() - start;
        client.close();
        if (fetched.from !== 'network' || fetched.document.length !== MAX_SCHEMA_BYTES) throw new Error('unexpected get result');
        if (i >= 0) gets[concurrency]!.push(elapsed);
      }
    }
    // The same at the default concurrency over the ordinary one-request-per-fragment transport.
    const unpipelined: number[] = [];
    for (let i = -1; i < runs; i++) {
      const client = createSchemaClient({ url: origin, cacheDir: join(cacheRoot, `plain-${i}`), pipelineSockets: 0 });
      const start = performance.now();
      const fetched = await client.get(manifest.schema_sha256);
      const elapsed = performance.now() - start;
      client.close();
      if (fetched.from !== 'network' || fetched.document.length !== MAX_SCHEMA_BYTES) throw new Error('unexpected get result');
      if (i >= 0) unpipelined.push(elapsed);
    }
    // Where the time goes at the default concurrency: verification alone (length, 3 digests, parse).
    const verifyClient = createSchemaClient({ url: origin, cacheDir: join(cacheRoot, 'verify') });
    await verifyClient.get(manifest.schema_sha256);
    const cached: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await verifyClient.get(manifest.schema_sha256);
      cached.push(performance.now() - start);
    }
    verifyClient.close();

    const floorMs = median(floor);
    rows.push({ measure: 'floor: one 16 MiB GET + SHA-256', value: `${floorMs.toFixed(1)} ms`, peer: '-', ratio: '1.00x' });
    for (const concurrency of concurrencies) {
      const ms = median(gets[concurrency]!);
      rows.push({ measure: `schema get, 4096 fragments, concurrency ${concurrency}${concurrency === DEFAULT_CONCURRENCY ? ' (default)' : ''}`, value: `${ms.toFixed(1)} ms`, peer: `${floorMs.toFixed(1)} ms floor`, ratio: `${(ms / floorMs).toFixed(2)}x` });
    }
    const plainMs = median(unpipelined);
    rows.push({ measure: `schema get, concurrency ${DEFAULT_CONCURRENCY}, pipelining off`, value: `${plainMs.toFixed(1)} ms`, peer: `${floorMs.toFixed(1)} ms floor`, ratio: `${(plainMs / floorMs).toFixed(2)}x` });
    const cachedMs = median(cached);
    rows.push({ measure: 'schema get from cache (read + full verification)', value: `${cachedMs.toFixed(1)} ms`, peer: `${floorMs.toFixed(1)} ms floor`, ratio: `${(cachedMs / floorMs).toFixed(2)}x` });
    json['get'] = {
      schemaBytes: manifest.schema_bytes, fragments: manifest.fragment_count, runs,
      floorMedianMs: floorMs, floorRunsMs: floor,
      byConcurrency: Object.fromEntries(concurrencies.map((c) => [c, { medianMs: median(gets[c]!), runsMs: gets[c], ratioToFloor: median(gets[c]!) / floorMs }])),
      unpipelinedMedianMs: plainMs,
      cachedGetMedianMs: cachedMs,
      targetRatio: 2,
    };
  } finally {
    child.stdin.end();
    rmSync(cacheRoot, { recursive: true, force: true });
  }

  const widths = (['measure', 'value', 'peer', 'ratio'] as const).map((k) => Math.max(k.length, ...rows.map((r) => r[k].length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${format(['measure', 'value', 'peer', 'ratio'])}\n${format(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(`${format([row.measure, row.value, row.peer, row.ratio])}\n`);
  const outIndex = args.indexOf('--out');
  if (outIndex >= 0 && args[outIndex + 1]) writeFileSync(args[outIndex + 1]!, `${JSON.stringify(json, null, 2)}\n`);
}

if (args[0] === '--serve') await serve();
else await main();
