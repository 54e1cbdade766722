import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';

let running: RunningToolgraph | undefined;
afterEach(async () => {
  await running?.close({ graceMs: 0 });
  running = undefined;
});

/** Sends `head` on a raw connection and resolves with everything received until the server closes it. */
function exchange(origin: string, head: string): Promise<string> {
  const socket = connect(Number(new URL(origin).port), '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  if (head !== '') socket.write(head);
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

describe('the connection settings in the composition root', () => {
  it('apply TOOLGRAPH_REQUEST_HEAD_TIMEOUT_MS and TOOLGRAPH_KEEP_ALIVE_TIMEOUT_MS to the main port', async () => {
    const config = resolveConfig({ env: {
      HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory',
      TOOLGRAPH_REQUEST_HEAD_TIMEOUT_MS: '200', TOOLGRAPH_KEEP_ALIVE_TIMEOUT_MS: '3000',
    } });
    running = await startToolgraph({ config, logger: silentLogger(), only: ['graph'] });
    // Silent for longer than the head deadline: 408, closed.
    expect(await exchange(running.origin, '')).toMatch(/^HTTP\/1\.1 408 /);
    // A served request says how long its connection stays open, in seconds.
    const kept = await exchange(running.origin, 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(kept).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(kept.toLowerCase()).toContain('keep-alive: timeout=3\r\n');
  });
});
