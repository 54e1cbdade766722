/**
 * The child side of server-process.ts: a server under test, as a process of its own, tells its parent
 * it is serving, answers the parent's messages and closes when asked or when the parent goes away.
 */
import { rmSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RunningToolgraph } from '../../src/serve/index.ts';

export function sendToParent(message: object): void {
  process.send!(message);
}

/** A full GC on demand, without starting the process with --expose-gc. */
export function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Serves until the parent sends `{ close: true }` or disconnects: then closes `running`, removes its
 * data dir and exits. Every other message goes to `onMessage`. Sends `ready` (with `ready: true`) last.
 */
export function serveUntilClosed<Message extends object>(running: RunningToolgraph, dir: string, ready: object, onMessage: (message: Message) => void = () => undefined): void {
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await running.close({ graceMs: 0 });
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('message', (message: Message | { close: true }) => {
    if ('close' in message) void close();
    else onMessage(message);
  });
  process.on('disconnect', () => void close());
  sendToParent({ ...ready, ready: true });
}
