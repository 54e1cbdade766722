/**
 * The fuzzer's server, as a process of its own (fuzz-target.ts forks it): the product's graph services
 * (memory store) with the hostile graph imported. A child process keeps the test runner's own work and
 * garbage collection out of what /healthz measures, and lets the heap bound read the server's heap
 * alone. It speaks over the IPC channel: it sends `{ ready, origin }` once serving, answers
 * `{ heap: id }` with `{ heap: id, used }` (heap used after a full GC, in bytes), answers
 * `{ reset: id }` with `{ reset: id }` once the hostile graph is dropped and imported again as it
 * was at the start, and exits after closing on `{ close: true }` or when the parent goes away.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../../../src/config/index.ts';
import { importJsonlFile } from '../../../src/graph/jsonl/index.ts';
import { silentLogger } from '../../../src/log/index.ts';
import { startToolgraph } from '../../../src/serve/index.ts';
import { collector, sendToParent, serveUntilClosed } from '../../support/server-process-child.ts';
import { HOSTILE_GRAPH, hostileLines } from './hostile-graph.ts';

export type ParentMessage = { readonly heap: number } | { readonly reset: number };
export interface ReadyMessage {
  readonly ready: true;
  readonly origin: string;
}
export type ChildMessage = { readonly heap: number; readonly used: number } | { readonly reset: number };

const send = (message: ChildMessage): void => sendToParent(message);

const env = JSON.parse(process.env['FUZZ_SERVER_ENV'] ?? '{}') as Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'tg-fuzz-'));
const config = resolveConfig({ env: { HOME: dir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL: 'silent', ...env } });
const running = await startToolgraph({ config, logger: silentLogger(), only: ['graph'] });
const file = join(dir, 'hostile.jsonl');
writeFileSync(file, `${hostileLines().join('\n')}\n`);
await importJsonlFile(running.engine!, HOSTILE_GRAPH, file, { create: true });
await running.settled();

/** The hostile graph as it was at the start: what the accepted writes of earlier cases added is gone. */
async function reset(): Promise<void> {
  await running.engine!.dropGraph(HOSTILE_GRAPH);
  await importJsonlFile(running.engine!, HOSTILE_GRAPH, file, { create: true });
  await running.settled();
}
const gc = collector();

serveUntilClosed<ParentMessage>(running, dir, { origin: running.origin }, (message) => {
  if ('reset' in message) void reset().then(() => send({ reset: message.reset }));
  else {
    gc();
    send({ heap: message.heap, used: process.memoryUsage().heapUsed });
  }
});
