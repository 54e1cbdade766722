/**
 * The two sides of the hot-path benchmarks (hot-path.ts measures time, hot-path-instructions.ts
 * counts instructions): a real `toolgraph serve --only graph` process per built checkout, each on
 * its own fresh file store holding the seeded `demo` graph and the 22,000-node people graph of the
 * GraphQL benchmark, and the ordinary reads both suites send.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHAPES } from './graphql-shapes.ts';

export interface Request { readonly name: string; readonly path: string; readonly body: string }

const tour = 'MATCH (p:Person)-[:WORKS_AT]->(o:Organization {name: $org}) RETURN p.name AS name, [(p)-[:CONTRIBUTES_TO]->(x:Project) | x.name] AS projects ORDER BY name LIMIT 2';

/** The GraphQL shapes byId, filtered20 and deep100 on /graphql/people, and the README tour's Cypher query and a point read on /dispatch. */
export const REQUESTS: readonly Request[] = [
  ...Object.entries(SHAPES).map(([name, query]) => ({ name: `graphql ${name}`, path: '/graphql/people', body: JSON.stringify({ query }) })),
  { name: 'dispatch tour query', path: '/dispatch', body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: tour, params: { org: 'Acme Analytics' } } } }) },
  { name: 'dispatch point read', path: '/dispatch', body: JSON.stringify({ id: 2, graph: 'demo', method: { Cypher: { query: 'MATCH (p:Person {id: $id}) RETURN p.name AS name, p', params: { id: 'person-001' } } } }) },
];

/** How a side's server process is started: a command put in front of node (taskset, valgrind) and node's own flags. */
export interface StartOptions {
  readonly wrapper?: readonly string[];
  readonly nodeFlags?: readonly string[];
}

export class Side {
  child: ChildProcess | undefined;
  origin = '';
  readonly dataDir = mkdtempSync(join(tmpdir(), 'tg-hot-path-'));
  readonly name: string;
  readonly root: string;
  readonly #settings: Record<string, string>;
  readonly #defaults: StartOptions;
  constructor(name: string, root: string, settings: Record<string, string> = {}, defaults: StartOptions = {}) {
    this.name = name;
    this.root = root;
    this.#settings = settings;
    this.#defaults = defaults;
  }

  #env(): NodeJS.ProcessEnv {
    return { ...process.env, HOME: this.dataDir, TOOLGRAPH_DATA_DIR: this.dataDir, PORT: '0', LOG_LEVEL: 'warn', ...this.#settings };
  }

  #cli(): string[] {
    return [join(this.root, 'dist', 'src', 'cli', 'toolgraph.js')];
  }

  #node(): string {
    return join(this.root, 'node_modules', '.bin', 'node');
  }

  /** Starts the server (`options` in place of the side's defaults) and waits until /healthz answers. */
  async start(options: StartOptions = this.#defaults): Promise<void> {
    const command = [...(options.wrapper ?? []), this.#node(), ...(options.nodeFlags ?? []), ...this.#cli(), 'serve', '--only', 'graph'];
    const child = spawn(command[0]!, command.slice(1), { cwd: this.root, env: this.#env(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-4000);
    });
    this.origin = await new Promise<string>((done, fail) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const found = /listening on (http:\/\/\S+)/.exec(text);
        if (found) done(found[1]!);
      });
      child.once('exit', (code) => fail(new Error(`${this.name}: serve exited with ${code} before listening:\n${errors}`)));
    });
    while (!(await fetch(`${this.origin}/healthz`).then((r) => r.ok, () => false))) await new Promise((r) => setTimeout(r, 50));
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  /** A fresh store: serve once (it seeds demo), then import the people graph while no server holds it. */
  async prepare(jsonl: string): Promise<void> {
    await this.start();
    await this.stop();
    const imported = spawnSync(this.#node(), [...this.#cli(), 'graph', 'import', 'people', jsonl, '--create'], { cwd: this.root, env: this.#env(), encoding: 'utf8' });
    if (imported.status !== 0) throw new Error(`${this.name}: import failed: ${imported.stderr}`);
    await this.start();
  }
}

/** Fails unless both running sides answer `request` with the same data (the builds must do the same work). */
export async function sameAnswer(a: Side, b: Side, request: Request): Promise<void> {
  const answer = async (side: Side) => {
    const res = await fetch(`${side.origin}${request.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request.body });
    const json = (await res.json()) as { data?: unknown; result?: { rows?: unknown } };
    if (res.status !== 200) throw new Error(`${side.name} ${request.name}: HTTP ${res.status}`);
    return JSON.stringify(json.data ?? json.result?.rows);
  };
  const [x, y] = [await answer(a), await answer(b)];
  if (x !== y) throw new Error(`${request.name}: the two builds answer differently:\n${x.slice(0, 300)}\n${y.slice(0, 300)}`);
}
