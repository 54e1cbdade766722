import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { openRawSession } from '../support/raw-mcp-session.ts';
import { reportSkip } from '../support/skip-reason.ts';
import { until } from '../support/until.ts';

/**
 * Issue 28: with the storage failing (a full disk), MCP `initialize` answered 500 TG_INTERNAL and
 * /healthz stayed 200 `ok` while every write failed. A store that cannot write now answers 503
 * TG_STORAGE_FAILED (what failed, its error code, Retry-After) and turns /healthz 503 `failing`,
 * so a load balancer takes the replica out of rotation; the state store comes back by itself once
 * a probe write works again, the graph log (which refuses every write after a failed one) at restart.
 */

const servers: RunningToolgraph[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function serveOn(dataDir: string): Promise<RunningToolgraph> {
  const running = await startToolgraph({
    config: resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'file', TOOLGRAPH_DATA_DIR: dataDir } }),
    logger: silentLogger(),
  });
  servers.push(running);
  return running;
}

async function health(origin: string): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${origin}/healthz`);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

describe('a failing store answers TG_STORAGE_FAILED and turns /healthz not-ready (issue 28)', () => {
  it('the state store failing under MCP initialize: 503 TG_STORAGE_FAILED, /healthz `failing`, and both back once it writes again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-data-'));
    const running = await serveOn(dataDir);
    expect((await health(running.origin)).status).toBe(200);
    // A real file-system failure under the real store: the sessions' directory is a regular file, so
    // every read and write under it fails with ENOTDIR (as root, a read-only mode would stop nothing).
    mkdirSync(join(dataDir, 'state'), { recursive: true });
    writeFileSync(join(dataDir, 'state', 'mcp-sessions'), 'not a directory');

    const refused = await openRawSession(running.origin);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('5');
    expect(JSON.parse(refused.body)).toEqual({
      error: {
        code: 'TG_STORAGE_FAILED',
        message: 'The file state store could not read (ENOTDIR); nothing was stored. Retry in a few seconds.',
        details: { store: 'file', code: 'ENOTDIR', retryAfterSecs: 5 },
      },
    });
    const failing = await health(running.origin);
    expect(failing).toMatchObject({ status: 503, retryAfter: '1', body: { status: 'failing', failing: { state: 'the file state store could not read (ENOTDIR)' } } });
    // Nothing of the machine's paths in what an unauthenticated probe reads.
    expect(JSON.stringify(failing.body)).not.toContain(dataDir);

    // Repaired: the probe's write succeeds within its interval, and the process is ready again.
    rmSync(join(dataDir, 'state', 'mcp-sessions'));
    await until('/healthz is ok again', async () => (await health(running.origin)).status === 200, 12_000);
    expect((await openRawSession(running.origin)).status).toBe(200);
  }, 30_000);
});

/** A tmpfs of `kib` KiB, when this machine lets the test mount one (root with CAP_SYS_ADMIN). */
function tinyTmpfs(kib: number): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'tg-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

const fullDisk = tinyTmpfs(2048);
if (fullDisk === undefined) reportSkip('the full-disk storage test', 'this machine does not let the test mount a tmpfs (it needs root with CAP_SYS_ADMIN)', 'run the tests as root in a container that may mount');
afterAll(() => {
  if (fullDisk === undefined) return;
  execFileSync('umount', ['-l', fullDisk], { stdio: 'ignore' });
  rmSync(fullDisk, { recursive: true, force: true });
});

describe.skipIf(fullDisk === undefined)('a full disk (a real ENOSPC on a tmpfs)', () => {
  it('graph writes and MCP initialize answer TG_STORAGE_FAILED, /healthz says what fails; the state store recovers once there is room, the graph log at restart', async () => {
    const dataDir = join(fullDisk!, 'data');
    const running = await serveOn(dataDir);
    expect((await health(running.origin)).status).toBe(200);
    // Fill what is left of the disk.
    let filler = 0;
    try {
      for (;;) writeFileSync(join(fullDisk!, `filler-${filler++}`), Buffer.alloc(64 * 1024));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    const write = await fetch(`${running.origin}/dispatch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: `CREATE (:Filler {id: 'f1', text: '${'x'.repeat(8000)}'})` } } }),
    });
    expect(((await write.json()) as { error?: { code: string } }).error?.code).toBe('TG_STORAGE_FAILED');
    const refused = await openRawSession(running.origin);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'TG_STORAGE_FAILED', details: { code: 'ENOSPC' } } });
    expect(await health(running.origin)).toMatchObject({
      status: 503,
      body: { status: 'failing', failing: { state: 'the file state store could not write (ENOSPC)', graphs: expect.stringMatching(/^the graph log could not be written \(ENOSPC\); every write is refused until restart$/) } },
    });
    // Room again: the state store comes back by itself, the graph log does not (a restart recovers it).
    for (let i = 0; i < filler; i++) rmSync(join(fullDisk!, `filler-${i}`), { force: true });
    await until('the state store is writable again', async () => (await health(running.origin)).body['failing'] !== undefined && !('state' in ((await health(running.origin)).body['failing'] as object)), 12_000);
    expect((await openRawSession(running.origin)).status).toBe(200);
    expect((await health(running.origin)).body).toMatchObject({ status: 'failing', failing: { graphs: expect.any(String) } });
  }, 30_000);
});
