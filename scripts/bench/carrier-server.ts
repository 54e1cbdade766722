/**
 * One side of the carrier benchmark, in a process of its own so its memory is measured alone.
 * Usage (spawned by carrier.ts with an IPC channel): node --expose-gc carrier-server.ts --side carrier|yoga|bare --jwks FILE
 * It seeds a graph, listens on 127.0.0.1:0 and answers IPC messages:
 *   {type: 'measure'} → {type: 'memory', rss, heapUsed}   (after two full GCs)
 *   {type: 'mutate', n} → commits one batch that changes a visible row → {type: 'mutated'}
 * - carrier: the subscription carrier with the product's ports (the GraphQL executor reading through
 *   the access module; the graph has the open policy the seeded demo graph gets).
 * - yoga: graphql-yoga's built-in SSE subscriptions over the same schema and resolvers, each
 *   Subscription field fed by a pubsub event per committed batch (plus one at subscribe time, for the
 *   initial frame).
 * - bare: a node:http SSE server that writes one precomputed frame: the floor a connection costs.
 */
import { setMaxListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { resolveConfig } from '../../src/config/index.ts';
import { OPEN_POLICY, replaceAccessPolicy } from '../../src/graph/access/index.ts';
import { loadSignerKeys, startCarrier } from '../../src/graph/carrier/index.ts';
import { GraphEngine } from '../../src/graph/engine/index.ts';
import { MemoryPersistence, MemoryStore } from '../../src/graph/persist/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { productCarrierPorts } from '../../src/serve/index.ts';
import { standInContext, standInSchema } from '../../test/support/subscription-executor.ts';
import { arg } from './bench-args.ts';

/** The part of graphql-yoga this peer uses. */
interface YogaModule {
  createPubSub(): { publish(topic: 'change', version: number): void; subscribe(topic: 'change'): AsyncIterable<number> };
  createYoga(options: { schema: unknown; context: () => object; logging: boolean; graphiql: boolean; landingPage: boolean }): import('node:http').RequestListener;
}


export const BENCH_GRAPH = 'bench';
const side = arg('--side');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const send = (message: unknown): void => {
  process.send!(message);
};

const engine = await GraphEngine.open({ persistence: new MemoryPersistence({ store: new MemoryStore() }) });
await engine.createGraph(BENCH_GRAPH);
await engine.commit({
  graph: BENCH_GRAPH,
  mutations: Array.from({ length: 100 }, (_v, i) => ({ op: 'createNode' as const, id: `p${String(i).padStart(3, '0')}`, label: 'Person', props: { name: `Person ${i}`, age: 20 + (i % 50) } })),
});

let port: number;
if (side === 'carrier') {
  await replaceAccessPolicy(engine, BENCH_GRAPH, OPEN_POLICY);
  // The settings' defaults, as `serve` would pass them.
  const values = resolveConfig({ env: { HOME: tmpdir() } }).values;
  const ports = productCarrierPorts(engine, values);
  const carrier = await startCarrier({
    host: '127.0.0.1', port: 0, graphs: engine, executor: ports.executor, access: ports.access,
    signerKeys: await loadSignerKeys(arg('--jwks')!), logger: silentLogger(), maxConnections: 10_000, maxSessionSecs: 3600,
    listLimit: values.graphqlListLimit, maxWork: values.carrierMaxWork,
  });
  port = carrier.port;
} else if (side === 'yoga') {
  // Imported by a name held in a variable: graphql-yoga's typings would otherwise replace the
  // program's fetch types (BodyInit and friends) for every file tsc checks.
  const yogaPackage = 'graphql-yoga';
  const { createPubSub, createYoga } = (await import(yogaPackage)) as YogaModule;
  // Yoga's pubsub is an EventTarget with one listener per subscriber; Node would warn past ten.
  setMaxListeners(0);
  const pubSub = createPubSub();
  engine.subscribe((event) => {
    if (event.kind === 'batch') pubSub.publish('change', event.version);
  });
  async function* changes(): AsyncGenerator<number> {
    yield 0;
    yield* pubSub.subscribe('change');
  }
  const principal = { subject: 'bench', scopes: ['kg:read'], groups: [] };
  const yoga = createYoga({
    schema: standInSchema(engine.view(BENCH_GRAPH).catalogue, changes),
    context: () => standInContext(engine.view(BENCH_GRAPH), principal),
    logging: false,
    graphiql: false,
    landingPage: false,
  });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
} else if (side === 'bare') {
  let frame = Buffer.from('event: next\ndata: {"data":{}}\n\n');
  const open = new Set<import('node:http').ServerResponse>();
  engine.subscribe(() => {
    frame = Buffer.from(`event: next\ndata: {"data":{"v":${Date.now()}}}\n\n`);
    for (const res of open) res.write(frame);
  });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write(frame);
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
} else throw new Error(`unknown --side ${side}`);

async function memory(): Promise<{ rss: number; heapUsed: number }> {
  gc!();
  await new Promise((resolve) => setTimeout(resolve, 200));
  gc!();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

process.on('message', (message: { type: string; n?: number }) => {
  if (message.type === 'measure') {
    void memory().then((m) => send({ type: 'memory', ...m }));
  } else if (message.type === 'mutate') {
    void engine.commit({ graph: BENCH_GRAPH, mutations: [{ op: 'updateNode', id: 'p000', set: { name: `Renamed ${message.n ?? 0}` } }] })
      .then(() => send({ type: 'mutated' }));
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', port, ...(await memory()) });
