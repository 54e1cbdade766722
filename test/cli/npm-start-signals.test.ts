// `npm start` as a supervisor runs it: SIGTERM goes to the process it started (npm), not to its
// process group as a shell's `kill %1` or a terminal's Ctrl-C does. npm forwards the signal to the
// script's shell; unless that shell has exec'd the server, the shell dies and the server lives on
// with the store locked. This test starts `npm start` for real (prestart included) on a free port
// and a store of its own, signals the npm process alone, and wants the server gone, its port
// closed and the store free.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { until } from '../support/until.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let npm: ChildProcess | undefined;
let serverPid: number | undefined;
let dir: string | undefined;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** GET /healthz on a connection of its own (no keep-alive, so shutdown has nothing to wait for). */
function healthz(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end();
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

afterEach(() => {
  // Whatever a failing run left behind (the server this test started, by its pid).
  if (serverPid !== undefined && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
  if (npm?.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
  npm = serverPid = dir = undefined;
});

describe('npm start under a supervisor', () => {
  it('SIGTERM to the npm process alone stops the server: its port closes and the store lock is released', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tg-npm-start-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: dir, LANG: 'C.UTF-8', XDG_CONFIG_HOME: join(dir, 'config'),
      TOOLGRAPH_DATA_DIR: join(dir, 'store'), TOOLGRAPH_CACHE_DIR: join(dir, 'cache'), TOOLGRAPH_STATE_DIR: join(dir, 'state'),
      HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' };
    npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    npm.stderr!.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    const exited = new Promise<void>((resolve) => npm!.once('exit', () => resolve()));
    // prestart may build dist/ first (tsc), when src/ changed since the last build.
    await until('npm start listens', () => out.includes(`toolgraph listening on http://127.0.0.1:${port}`) || npm!.exitCode !== null, 180_000)
      .catch((error: Error) => { throw new Error(`${error.message}; its output:\n${out}`); });
    expect(npm.exitCode, out).toBeNull();
    expect(await healthz(port)).toBe(200);

    const lockFile = join(dir, 'store', 'graphs', 'LOCK');
    serverPid = (JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number }).pid;
    expect(alive(serverPid)).toBe(true);

    npm.kill('SIGTERM'); // the npm process only, not its group
    await until('the server process exits', () => !alive(serverPid!), 5_000);
    await until('npm exits', () => npm!.exitCode !== null || npm!.signalCode !== null, 5_000);
    await exited;
    expect(await portOpen(port)).toBe(false);

    // The store is free: a command that opens it (and takes its lock) succeeds.
    const list = spawnSync(process.execPath, ['dist/src/cli/toolgraph.js', 'graph', 'list'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(list.stderr).not.toMatch(/locked/);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^demo\s/m);
  }, 240_000);
});
