// The README's sign-in session (section "Delegation", `toolgraph auth login` against the local test
// IdP of `npm run dev:idp`) prints what those commands print against that IdP: the token path under
// the default state directory of user `me` (here: this test's HOME) and the tokens' lifetime.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The console block with `auth login jira`: each command with the lines the page shows after it. */
function session(): { command: string; expected: string[] }[] {
  const block = readme.split('```console').slice(1).map((b) => b.slice(0, b.indexOf('```'))).find((b) => b.includes('auth login jira'));
  const steps: { command: string; expected: string[] }[] = [];
  for (const line of (block ?? '').split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
    else if (line.startsWith('    ') && steps.at(-1)?.expected.length === 0 && steps.at(-1)!.command.endsWith('\\')) steps.at(-1)!.command = `${steps.at(-1)!.command.slice(0, -1)} ${line.trim()}`;
    else if (steps.length > 0 && line.trim() !== '') steps.at(-1)!.expected.push(line);
  }
  return steps;
}

/** The page's `npx toolgraph`, run from this checkout's source on this Node. */
const PRELUDE = 'npx() { if [ "$1" = toolgraph ]; then shift; "$TG_NODE" "$TG_ROOT/src/cli/toolgraph.ts" "$@"; else return 127; fi; }';

let dir: string;
let home: string;
let idp: ChildProcess;
const env: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tg-delegation-session-'));
  home = join(dir, 'home');
  mkdirSync(home);
  // npm run dev:idp, as the README says; its exports are the session's shell variables.
  idp = spawn('npm', ['run', '-s', 'dev:idp'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    idp.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (/^export GRAPHQL_ONLY=/m.test(out)) resolve();
    });
    idp.once('exit', (code) => reject(new Error(`dev:idp exited (${code}):\n${out}`)));
  });
  for (const m of out.matchAll(/^export ([A-Z_]+)=(\S+)$/gm)) env[m[1]!] = m[2]!;
  // A clean user: no config.json, no XDG variables, so the state directory is the default under HOME.
  Object.assign(env, { PATH: process.env['PATH'] ?? '', HOME: home, LANG: 'C.UTF-8', TG_NODE: process.execPath, TG_ROOT: ROOT });
});
afterAll(async () => {
  if (idp && idp.exitCode === null) {
    const exited = once(idp, 'exit');
    idp.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `command` in bash, visits the first URL matching `visitPattern` with a browser that signs in, and returns its output once it exited. */
async function signIn(command: string, visitPattern: RegExp): Promise<string[]> {
  const child = spawn('bash', ['-c', `${PRELUDE}\n${command}`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString('utf8'); });
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = visitPattern.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before printing a URL:\n${out}${err}`)));
  });
  await new Browser().visit(url);
  const [code] = (await exited) as [number];
  expect({ code, err }).toEqual({ code: 0, err: '' });
  return out.replaceAll(home, '/home/me').trimEnd().split('\n');
}

describe("the README's sign-in session against npm run dev:idp", () => {
  const steps = session();

  it('is there: two sign-ins and a listing', () => {
    expect(steps.map((s) => /auth login (\w+)|ls -l/.exec(s.command)?.[0])).toEqual(['auth login jira', 'auth login vendor', 'ls -l']);
  });

  it('the three-legged sign-in prints the path and lifetime the page shows', async () => {
    const step = steps[0]!;
    // A free callback port instead of the default 56121, which another run may hold; only the lines
    // after the sign-in are compared.
    const lines = await signIn(`${step.command} --callback-port 0`, /^ {2}(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m);
    expect(lines.at(-1)).toBe(step.expected.at(-1));
    expect(lines.at(-2)).toBe(step.expected.at(-2));
  });

  it('the device sign-in prints the path and lifetime the page shows', async () => {
    const step = steps[1]!;
    const lines = await signIn(step.command, /^\(or open (\S+), which has the code filled in\)$/m);
    expect(lines.slice(-2)).toEqual(step.expected.slice(-2));
  });

  it('the listing shows the two token sets, mode 0600, where the page looks', () => {
    const step = steps[2]!;
    const run = spawnSync('bash', ['-c', step.command], { cwd: ROOT, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const shape = (line: string) => { const f = line.split(/\s+/); return `${f[0]} ${f.at(-1)}`; };
    expect(run.stdout.trimEnd().split('\n').filter((l) => !l.startsWith('total')).map(shape)).toEqual(step.expected.map(shape));
  });
});
