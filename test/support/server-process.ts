/**
 * A server under test in a process of its own, and the channel the test speaks to it on (Node's IPC).
 * The hostile suites run their servers so: the test runner's own work stays out of what /healthz
 * measures, the server's memory is read alone, and a build that runs out of memory fails the test
 * instead of taking the test runner (or the machine, with a heap bound) down. The child side is
 * server-process-child.ts: it sends `{ ready: true, … }` once serving and closes on `{ close: true }`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ServerProcessOptions {
  /** What errors call it: "the fuzz server". */
  readonly name: string;
  /** Environment variables added to the test's own. */
  readonly env?: Readonly<Record<string, string>>;
  /** Node/V8 flags of the child (a heap bound, say). */
  readonly execArgv?: readonly string[];
  readonly startTimeoutMs?: number;
}

export interface ServerProcess<Ready, Message> {
  /** What the child sent once serving. */
  readonly ready: Ready;
  /**
   * Sends `request(id)` with a fresh id and answers the first message `answerOf` picks out for it;
   * rejects if the child exits first.
   */
  ask<T>(request: (id: number) => unknown, answerOf: (message: Message, id: number) => T | undefined): Promise<T>;
  /** The child's resident set size now, in bytes (from /proc: Linux, where the tests run); 0 once it is gone. */
  rss(): number;
  /** Whether the child still runs (one that ran out of memory does not). */
  alive(): boolean;
  /** Asks the child to close, and kills it if it has not exited after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

function residentBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return 0;
  }
}

/** Forks `entry` (a .ts file run by this Node, without the test runner's loaders) and waits for its ready message. */
export async function forkServerProcess<Ready extends { readonly ready: true }, Message extends object>(entry: string, options: ServerProcessOptions): Promise<ServerProcess<Ready, Message>> {
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const child: ChildProcess = fork(entry, [], {
    execArgv: [...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name} did not start within ${startTimeoutMs / 1000} s`)), startTimeoutMs);
    child.once('exit', (code) => reject(new Error(`${options.name} exited with ${code} before serving`)));
    child.on('message', (message: Message | Ready) => {
      if (!('ready' in message)) return;
      clearTimeout(timer);
      resolve(message);
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  let next = 0;
  return {
    ready,
    ask<T>(request: (id: number) => unknown, answerOf: (message: Message, id: number) => T | undefined): Promise<T> {
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
        const onMessage = (message: Message): void => {
          const answer = answerOf(message, id);
          if (answer === undefined) return;
          child.off('message', onMessage);
          resolve(answer);
        };
        child.on('message', onMessage);
        void exited.then(() => reject(new Error(`${options.name} exited`)));
        child.send(request(id) as object);
      });
    },
    rss: () => residentBytes(child.pid!),
    alive: () => child.exitCode === null && child.signalCode === null,
    async close(graceMs = 10_000) {
      if (child.exitCode === null && child.connected) child.send({ close: true });
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
    },
  };
}
