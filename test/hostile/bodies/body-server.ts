/**
 * The server of the request-body tests (F4, F5), as a process of its own (body-target.ts forks it):
 * the whole product (graph, GraphQL, tools, catalogue; memory store) with the settings the test
 * gives. A child process lets the test read the server's resident set alone, and a server that runs
 * out of memory fails the test instead of taking the test runner down. It sends `{ ready, origin }`
 * once serving, answers `{ buffers: id }` with `{ buffers: id, bytes }` (the bytes of live ArrayBuffers,
 * Buffers among them, after a full GC: what bodies hold outside the heap) and exits after closing on
 * `{ close: true }` or when the parent goes away.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../../../src/config/index.ts';
import { silentLogger } from '../../../src/log/index.ts';
import { startToolgraph } from '../../../src/serve/index.ts';
import { collector, sendToParent, serveUntilClosed } from '../../support/server-process-child.ts';

export interface BodyReadyMessage {
  readonly ready: true;
  readonly origin: string;
}
export interface BodyServerMessage {
  readonly buffers: number;
  readonly bytes: number;
}
export interface BodyParentMessage {
  readonly buffers: number;
}
const gc = collector();

const env = JSON.parse(process.env['BODY_SERVER_ENV'] ?? '{}') as Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'tg-bodies-'));
const config = resolveConfig({ env: { HOME: dir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', LOG_LEVEL: 'silent', ...env } });
const running = await startToolgraph({ config, logger: silentLogger() });

serveUntilClosed<BodyParentMessage>(running, dir, { origin: running.origin }, (message) => {
  // V8 frees the backing stores of collected buffers on a thread of its own: a second collection
  // a moment later finds the first one's done.
  gc();
  setTimeout(() => {
    gc();
    sendToParent({ buffers: message.buffers, bytes: process.memoryUsage().arrayBuffers } satisfies BodyServerMessage);
  }, 20);
});
