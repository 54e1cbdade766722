import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testDatabaseUrl } from './prerequisites.ts';

export { freePort } from '../../support/free-port.ts';

/** A PostgreSQL schema of its own for one test file (graphs and shared state), dropped by `drop`. */
export async function freshSchema(): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `tg_replicas_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  return {
    name,
    async drop() {
      const client = new pg.Client({ connectionString: testDatabaseUrl() });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await client.end();
    },
  };
}

/** One `toolgraph serve` process from dist/, restartable on the same port. */
export class Replica {
  readonly name: string;
  readonly port: number;
  readonly #script: string;
  readonly #env: Record<string, string>;
  readonly #home: string;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  /** Every line it wrote, across restarts. */
  readonly lines: string[] = [];

  constructor(name: string, script: string, port: number, env: Record<string, string>) {
    this.name = name;
    this.#script = script;
    this.port = port;
    this.#env = env;
    this.#home = mkdtempSync(join(tmpdir(), `tg-${name}-`));
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the process and waits until /healthz answers 200 (or `ready` says so). */
  async start(ready: (health: Response) => boolean = (h) => h.status === 200): Promise<void> {
    const child = spawn(process.execPath, [this.#script, 'serve'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: this.#home,
        XDG_CONFIG_HOME: join(this.#home, 'config'),
        XDG_DATA_HOME: join(this.#home, 'data'),
        XDG_STATE_HOME: join(this.#home, 'state'),
        XDG_CACHE_HOME: join(this.#home, 'cache'),
        PORT: String(this.port),
        ...this.#env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    const collect = (chunk: Buffer) => this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    // Generous: two cores shared with the rest of the suite, and a replica loads every module at start.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`replica ${this.name} exited (${child.exitCode}) at start:\n${this.lines.slice(-20).join('\n')}`);
      const health = await fetch(`${this.origin}/healthz`).catch(() => undefined);
      if (health !== undefined && ready(health)) return;
      await health?.body?.cancel();
      if (Date.now() > deadline) throw new Error(`replica ${this.name} not ready after 60 s:\n${this.lines.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGTERM (a deploy's graceful stop) or SIGKILL (a crash), and waits for the exit. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await this.#exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async dispose(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.#home, { recursive: true, force: true });
  }
}
