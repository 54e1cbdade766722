/**
 * The server of the carrier-work test (issue 28, F7), as a process of its own (carrier-work-target.ts
 * forks it): the product's graph services with the subscription carrier on (memory store), and a
 * graph of hubs, each linked to leaves of its own, built before it reports ready. A child process
 * keeps the test runner's work out of what /healthz measures, reads the server's RSS alone, and turns
 * an old build that runs out of memory into a test failure instead of a dead test worker. It speaks
 * over the IPC channel: `{ ready, origin, carrier }` once serving; `{ rss: id }` is answered with
 * `{ rss: id, bytes, peakBytes }` (resident set now and its peak); it exits after closing on
 * `{ close: true }` or when the parent goes away.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../../src/config/index.ts';
import { OPEN_POLICY, replaceAccessPolicy } from '../../src/graph/access/index.ts';
import type { MutationInput } from '../../src/graph/engine/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph } from '../../src/serve/index.ts';
import { sendToParent, serveUntilClosed } from '../support/server-process-child.ts';

export interface WorkServerSpec {
  readonly env: Record<string, string>;
  readonly hubs: number;
  readonly leavesPerHub: number;
}

export interface WorkParentMessage {
  readonly rss: number;
}
export interface WorkReadyMessage {
  readonly ready: true;
  readonly origin: string;
  readonly carrier: string;
}
export interface WorkChildMessage {
  readonly rss: number;
  readonly bytes: number;
  readonly peakBytes: number;
}

export const WORK_GRAPH = 'hubs';

/** `h07`: hub ids sort in their number's order. */
export function hubId(h: number): string {
  return `h${String(h).padStart(2, '0')}`;
}

/** `l07-0042`: a hub's leaves sort after its id's prefix, in their number's order. */
export function leafId(h: number, l: number): string {
  return `l${String(h).padStart(2, '0')}-${String(l).padStart(4, '0')}`;
}


const spec = JSON.parse(process.env['WORK_SERVER_SPEC'] ?? '{}') as WorkServerSpec;
const dir = mkdtempSync(join(tmpdir(), 'tg-carrier-work-'));
const config = resolveConfig({ env: { HOME: dir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL: 'silent', ...spec.env } });
const running = await startToolgraph({ config, logger: silentLogger(), only: ['graph'] });
const engine = running.engine!;
await engine.createGraph(WORK_GRAPH);
// Every label and property exists before the test starts, so no commit of the test changes the catalogue.
const mutations: MutationInput[] = [{ op: 'createNode', id: 'note-1', label: 'Note', props: { i: 0 } }];
for (let h = 0; h < spec.hubs; h++) {
  mutations.push({ op: 'createNode', id: hubId(h), label: 'Hub', props: { name: `hub ${h}` } });
  for (let l = 0; l < spec.leavesPerHub; l++) {
    mutations.push({ op: 'createNode', id: leafId(h, l), label: 'Leaf', props: { n: l } });
    mutations.push({ op: 'addEdge', src: hubId(h), tgt: leafId(h, l), type: 'LINK' });
  }
}
for (let i = 0; i < mutations.length; i += 10_000) await engine.commit({ graph: WORK_GRAPH, mutations: mutations.slice(i, i + 10_000) });
// The demo graph's policy: any signed-in subscriber reads every row, as an ordinary token would.
await replaceAccessPolicy(engine, WORK_GRAPH, OPEN_POLICY);
await running.settled();

const carrier = running.services.find((s) => s.name === 'carrier');
serveUntilClosed<WorkParentMessage>(running, dir, { origin: running.origin, carrier: carrier === undefined ? '' : new URL(carrier.url).origin }, (message) => {
  sendToParent({ rss: message.rss, bytes: process.memoryUsage.rss(), peakBytes: process.resourceUsage().maxRSS * 1024 } satisfies WorkChildMessage);
});
