import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { missingPrerequisites, nginxPath } from './prerequisites.ts';

export interface RunningNginx {
  /** The temporary prefix: config, logs, pid and temp paths. */
  readonly dir: string;
  /** A log file in the prefix (`access.log`, `error.log`, or one a server block names). */
  log(name: string): string;
  /** Graceful stop (SIGQUIT), then the prefix is removed. */
  stop(): Promise<void>;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs nginx in the foreground (`daemon off`, `master_process on`) as the current user, with a
 * temporary prefix (`-p`), a generated config (`-c`), its pid, error log and temp paths inside it.
 * `http` gives the body of the config's http block (upstreams and servers) for the prefix; `ports`
 * are the ports its servers listen on, awaited before this resolves.
 */
export async function startNginx(http: (dir: string) => string, ports: readonly number[]): Promise<RunningNginx> {
  // Debian's nginx (.ci/run installs it when missing), or TEST_NGINX.
  const nginx = nginxPath();
  const [missing] = missingPrerequisites({ nginx: true });
  if (missing !== undefined) throw new Error(`cannot start nginx: ${missing.why} (${missing.how})`);
  const dir = mkdtempSync(join(tmpdir(), 'tg-nginx-'));
  const user = userInfo();
  const config = `
daemon off;
master_process on;
worker_processes 1;
${user.uid === 0 ? `user ${user.username};` : ''}
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${http(dir)}
}
`;
  writeFileSync(join(dir, 'nginx.conf'), config);
  const child: ChildProcess = spawn(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  try {
    await Promise.race([
      Promise.all(ports.map((port) => waitForPort(port))),
      exited.then((code) => {
        throw new Error(`nginx exited (${code}) at start: ${output}\n${read('error.log')}`);
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    dir,
    log: read,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
