import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphEngine } from '../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../src/graph/persist/index.ts';
import { createGraphService } from '../../src/graph/service/index.ts';
import { startHost, type RunningHost } from '../../src/http/index.ts';
import { connect, type Socket } from 'node:net';
import { silentLogger } from '../../src/log/index.ts';
import { OverloadSignal } from '../../src/overload/index.ts';

/** The rows of docs/cypher.md's "HTTP statuses" table: situation, status, body. */
function documentedStatuses(): Map<string, { status: number; code: string | undefined }> {
  const text = readFileSync(new URL('../../docs/cypher.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## HTTP statuses'));
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Situation') && !line.startsWith('|---'));
  return new Map(rows.map((line) => {
    const [situation, status, body] = line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, ''));
    return [situation!, { status: Number.parseInt(status!, 10), code: /`(TG_[A-Z_]+)`/.exec(body!)?.[1] }];
  }));
}

let host: RunningHost;
let pending: RunningHost;
let overloaded: RunningHost;
let full: RunningHost;
let slotHolder: Socket;

beforeAll(async () => {
  const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  const service = createGraphService({ engine, logger: silentLogger(), resolvePrincipal: async () => ({ subject: 'local', scopes: ['*'] }) });
  host = await startHost({ services: [service], logger: silentLogger(), host: '127.0.0.1', port: 0 });
  pending = await startHost({ services: [], pending: ['graph'], logger: silentLogger(), host: '127.0.0.1', port: 0 });
  const overload = new OverloadSignal();
  overload.enter({ reason: 'heap', reading: 95, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' });
  overloaded = await startHost({ services: [service], logger: silentLogger(), host: '127.0.0.1', port: 0, overload });
  full = await startHost({ services: [service], logger: silentLogger(), host: '127.0.0.1', port: 0, connections: { maxConnections: 1, requestHeadTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 } });
  // An idle connection takes the only slot.
  slotHolder = connect(Number(new URL(full.origin).port), '127.0.0.1');
  await new Promise((resolve) => slotHolder.once('connect', resolve));
  while (full.connections().active < 1) await new Promise((resolve) => setTimeout(resolve, 5));
});

afterAll(async () => {
  await host.close();
  await pending.close();
  await overloaded.close();
  slotHolder.destroy();
  await full.close();
});

const post = (origin: string, body: string, contentType = 'application/json') =>
  fetch(`${origin}/dispatch`, { method: 'POST', headers: { 'content-type': contentType }, body });

/** One request per documented situation (by the start of its text), answered by the real service. */
const REQUESTS: [string, () => Promise<Response>][] = [
  ['Not POST', () => fetch(`${host.origin}/dispatch`)],
  ['Content-Type not', () => post(host.origin, '{}', 'text/plain')],
  ['Body over 1 MiB', () => post(host.origin, `{"pad":"${'x'.repeat(1024 * 1024)}"}`)],
  ['Not valid UTF-8', () => post(host.origin, '{"id":')],
  ['Nested deeper than 100 levels', () => post(host.origin, '{"id":0}')],
  ['The process is still starting', () => post(pending.origin, '{}')],
  ['The process is overloaded', () => post(overloaded.origin, '{}')],
  ['The request came on a connection past', () => post(full.origin, '{}')],
];

describe('docs/cypher.md HTTP statuses agree with the server', () => {
  const documented = documentedStatuses();

  it.each(REQUESTS)('%s', async (start, send) => {
    const row = [...documented.entries()].find(([situation]) => situation.startsWith(start));
    expect(row, `docs/cypher.md has no row starting "${start}"`).toBeDefined();
    const response = await send();
    const body = (await response.json()) as { error: { code: string } };
    expect({ status: response.status, code: body.error.code }).toEqual(row![1]);
  });
});
