// Replays the README's guided tour twice and compares every output line with the page:
//   node scripts/docs/replay-tour.ts [--passes N]     (needs dist/: npm run build)
// Each pass is a fresh session: the tour's own first commands make a new $tmp and point the store
// and the schema cache into it, so a pass starts from the seeded graph as a fresh clone does.
// `npm start` runs the built server (what prestart builds) on free loopback ports; the README's
// 4000 and 7879 are mapped to them both ways. `npx toolgraph`/`npx secret-manager` run dist's CLIs;
// the MCP Inspector's calls are skipped (npx downloads it). What may differ between runs is named
// by NORMALISE, and `…` in the page matches anything. Exits 1 on any difference, printing each.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Step {
  readonly command: string;
  readonly expected: string[];
}

/** The tour's commands in order, each with the lines the page shows after it. */
export function tourSteps(readme: string): Step[] {
  const tour = readme.slice(readme.indexOf('<!-- tour:start -->'), readme.indexOf('<!-- tour:end -->'));
  const steps: { command: string; expected: string[] }[] = [];
  for (const block of tour.split('```console').slice(1)) {
    for (const line of block.slice(0, block.indexOf('```')).split('\n')) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
      else if (line === '^C') steps.push({ command: '^C', expected: [] });
      else if (line.startsWith('    ') && steps.length > 0 && steps.at(-1)!.expected.length === 0 && !/^ {2}\S/.test(line)) steps.at(-1)!.command += line;
      else if (steps.length > 0 && line.trim() !== '') steps.at(-1)!.expected.push(line);
    }
  }
  return steps;
}

/** What legitimately differs between two sessions, and the placeholder each becomes. */
const NORMALISE: [RegExp, string][] = [
  [/\/tmp\/tmp\.[A-Za-z0-9]+/g, '$TMP'],
  [/kid [A-Za-z0-9_-]{20,} \(EdDSA\)/g, 'kid <kid> (EdDSA)'],
  [/process \d+ on \S+ \(since [^)]+\)/g, 'process <pid> on <host> (since <time>)'],
];

export function normalise(line: string): string {
  return NORMALISE.reduce((text, [pattern, to]) => text.replace(pattern, to), line);
}

/** `…` in the page stands for text the page shortened. */
function matches(expected: string, actual: string): boolean {
  if (!expected.includes('…')) return expected === actual;
  const pattern = expected.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${pattern}$`).test(actual);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

interface Session {
  readonly env: Record<string, string>;
  readonly ports: { http: number; carrier: number };
  server?: { child: ChildProcess; output: string[] };
  background: { child: ChildProcess; output: string; read: number }[];
}

/** README ports and hosts to the replay's, and back. */
function toReplay(text: string, s: Session): string {
  return text.replaceAll(':4000', `:${s.ports.http}`).replaceAll(':7879', `:${s.ports.carrier}`).replace(/SERVICE_GRAPHQL_ADDR=on\b/g, `SERVICE_GRAPHQL_ADDR=127.0.0.1:${s.ports.carrier}`);
}
function fromReplay(text: string, s: Session): string {
  return text.replaceAll(`:${s.ports.http}`, ':4000').replaceAll(`:${s.ports.carrier}`, ':7879');
}

/** The page's MCP Inspector calls (`npx -y @modelcontextprotocol/inspector@VERSION …`), which are not replayed: npx downloads it. */
export const INSPECTOR = /^npx (?:-y |--yes )?@modelcontextprotocol\/inspector@/;

/** Shell functions for the page's `npx` forms, so the commands run this checkout's build. */
const PRELUDE = `
npx() {
  case "$1" in
    toolgraph) shift; "$TG_NODE" "$TG_ROOT/dist/src/cli/toolgraph.js" "$@" ;;
    secret-manager) shift; "$TG_NODE" "$TG_ROOT/dist/src/cli/secret-manager.js" "$@" ;;
    *) echo "replay-tour: npx $1 is not replayed" >&2; return 127 ;;
  esac
}
`;

function shell(command: string, s: Session): string {
  const run = spawnSync('bash', ['-c', `${PRELUDE}\n${command}`], { cwd: ROOT, env: s.env, encoding: 'utf8', timeout: 60_000 });
  return `${run.stdout}${run.stderr}`;
}

/** Starts the built server as `npm start` does after its build, with `prefix` env assignments. */
async function startServer(prefix: string, s: Session, stdoutFile?: string): Promise<string[]> {
  const env: Record<string, string> = { ...s.env, PORT: String(s.ports.http) };
  for (const m of toReplay(prefix, s).matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]!] = m[2]!.replace(/\$tmp/g, s.env['tmp']!);
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli/toolgraph.js'), 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  s.server = { child, output };
  let text = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      if (/health {5}http:\S+\n/.test(text)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${text}`)));
    setTimeout(() => reject(new Error(`the server did not listen within 60 s:\n${text}`)), 60_000).unref();
  });
  // Log lines are written asynchronously (pino) and may trail the listing: wait until the output has
  // stopped growing for a moment (at most 3 s), as a reader of the terminal would see it.
  for (let waited = 0, last = -1; waited < 3000 && text.length !== last; waited += 300) {
    last = text.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  if (stdoutFile !== undefined) {
    writeFileSync(stdoutFile, text);
    return [];
  }
  return text.split('\n');
}

async function stopServer(s: Session): Promise<string[]> {
  const server = s.server;
  if (server === undefined) return [];
  s.server = undefined;
  let text = '';
  server.child.stdout!.on('data', (chunk: Buffer) => void (text += chunk.toString('utf8')));
  server.child.stderr!.on('data', (chunk: Buffer) => void (text += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill('SIGTERM');
  await exited;
  return text.split('\n');
}

/** New output of background commands, once it has stopped growing for a moment. */
async function backgroundOutput(s: Session): Promise<string[]> {
  if (s.background.length === 0) return [];
  let last = -1;
  for (let waited = 0; waited < 5000; waited += 300) {
    const total = s.background.reduce((n, b) => n + b.output.length, 0);
    if (total === last) break;
    last = total;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const lines: string[] = [];
  for (const b of s.background) {
    // SSE keepalive comments (`:`) arrive on a timer; the page leaves them out.
    lines.push(...b.output.slice(b.read).split('\n').filter((line) => !line.startsWith(':')));
    b.read = b.output.length;
  }
  return lines;
}

export interface Difference {
  readonly pass: number;
  readonly command: string;
  readonly expected: string[];
  readonly actual: string[];
}

/** The lines a step is checked on: blank lines and (for server starts) unshown log lines aside. */
function compare(step: Step, rawActual: string[], s: Session, server: boolean): { ok: boolean; actual: string[] } {
  const actual = rawActual.map((line) => normalise(fromReplay(line.replace(/\r$/, ''), s))).filter((line) => line.trim() !== '');
  const expected = step.expected.map(normalise);
  if (server) {
    // Log lines are JSON; the page shows some, shortened. Each must be found; the rest must equal.
    const logs = actual.filter((line) => line.startsWith('{'));
    const rest = actual.filter((line) => !line.startsWith('{'));
    const ok = expected.filter((line) => line.startsWith('{')).every((line) => logs.some((log) => matches(line, log)))
      && JSON.stringify(expected.filter((line) => !line.startsWith('{'))) === JSON.stringify(rest);
    // Between passes, log lines differ in time and order; the page checked the ones it shows.
    return { ok, actual: ok ? rest : actual };
  }
  const ok = expected.length === actual.length && expected.every((line, i) => matches(line, actual[i]!));
  return { ok, actual };
}

/** One pass of the tour: every step's normalised output, and where it differed from the page. */
export async function replayOnce(steps: Step[], pass: number): Promise<{ outputs: string[][]; differences: Difference[]; skipped: string[] }> {
  const s: Session = {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: mkdtempSync(join(tmpdir(), 'tg-tour-home-')), TG_NODE: process.execPath, TG_ROOT: ROOT, LANG: 'C.UTF-8', NO_COLOR: '1' },
    ports: { http: await freePort(), carrier: await freePort() },
    background: [],
  };
  // The CLI finds the server where the settings say it listens.
  s.env['PORT'] = String(s.ports.http);
  const outputs: string[][] = [];
  const differences: Difference[] = [];
  const skipped: string[] = [];
  try {
    for (const step of steps) {
      const command = toReplay(step.command, s);
      let raw: string[];
      let server = false;
      const assignment = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=/.test(command) && !/\bnpm (ci && npm )?start\b|\bnpx\b/.test(command);
      if (INSPECTOR.test(step.command)) {
        skipped.push(step.command);
        outputs.push([]);
        continue;
      } else if (assignment) {
        // Shell variables and exports carry over to later commands, as in one terminal.
        const state = join(s.env['HOME']!, '.replay-env');
        raw = shell(`set -a\n${command}\nenv -0 > ${state}`, s).split('\n');
        for (const entry of readFileSync(state, 'utf8').split('\0')) {
          const eq = entry.indexOf('=');
          if (eq > 0 && !/^(BASH_|SHLVL|_$|OLDPWD|PWD)/.test(entry.slice(0, eq))) s.env[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
      } else if (step.command === '^C') {
        raw = (await stopServer(s)).filter((line) => !line.startsWith('{'));
      } else if (/^kill %1\b/.test(step.command)) {
        // The server's output went to its log file.
        await stopServer(s);
        raw = [];
      } else if (/npm (ci && npm )?start\b/.test(step.command)) {
        const [prefix = ''] = step.command.split(/npm (?:ci && npm )?start/);
        const redirect = /npm start > (\S+) &/.exec(step.command)?.[1]?.replace('$tmp', s.env['tmp']!);
        raw = await startServer(prefix, s, redirect);
        server = true;
      } else if (/&\s*$/.test(command)) {
        const child = spawn('bash', ['-c', `${PRELUDE}\n${command.replace(/&\s*$/, '')}`], { cwd: ROOT, env: s.env, stdio: ['ignore', 'pipe', 'pipe'] });
        const entry = { child, output: '', read: 0 };
        child.stdout!.on('data', (chunk: Buffer) => void (entry.output += chunk.toString('utf8')));
        s.background.push(entry);
        raw = [];
      } else {
        raw = shell(command, s).split('\n');
      }
      raw.push(...(await backgroundOutput(s)));
      const result = compare(step, raw, s, server);
      outputs.push(result.actual);
      if (!result.ok) differences.push({ pass, command: step.command, expected: step.expected, actual: result.actual });
    }
  } finally {
    for (const b of s.background) b.child.kill('SIGTERM');
    await stopServer(s);
    if (s.env['tmp']?.startsWith(tmpdir())) rmSync(s.env['tmp'], { recursive: true, force: true });
    rmSync(s.env['HOME']!, { recursive: true, force: true });
  }
  return { outputs, differences, skipped };
}

/** The tour, `passes` times; a pass's output must also equal the first pass's. */
export async function replayTour(passes = 2): Promise<{ differences: Difference[]; skipped: string[]; steps: number }> {
  const steps = tourSteps(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const differences: Difference[] = [];
  let first: string[][] | undefined;
  let skipped: string[] = [];
  for (let pass = 1; pass <= passes; pass += 1) {
    const run = await replayOnce(steps, pass);
    differences.push(...run.differences);
    skipped = run.skipped;
    if (first === undefined) first = run.outputs;
    else {
      run.outputs.forEach((out, i) => {
        if (JSON.stringify(out) !== JSON.stringify(first![i])) differences.push({ pass, command: `(differs from pass 1) ${steps[i]?.command ?? ''}`, expected: first![i] ?? [], actual: out });
      });
    }
  }
  return { differences, skipped, steps: steps.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { passes: { type: 'string', default: '2' } } });
  const result = await replayTour(Number(values.passes));
  for (const d of result.differences) {
    process.stdout.write(`pass ${d.pass}: $ ${d.command}\n  page:\n${d.expected.map((l) => `    ${l}`).join('\n')}\n  got:\n${d.actual.map((l) => `    ${l}`).join('\n')}\n`);
  }
  process.stdout.write(`${result.steps} steps, ${Number(values.passes)} passes, ${result.differences.length} differences; skipped (npx downloads them): ${result.skipped.length}\n`);
  process.exitCode = result.differences.length === 0 ? 0 : 1;
}
