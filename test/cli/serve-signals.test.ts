import { describe, expect, it } from 'vitest';
import { serveUntilSignal } from '../../src/cli/commands/serve-command.ts';
import { silentLogger } from '../../src/log/index.ts';
import type { RunningToolgraph } from '../../src/serve/index.ts';

describe('serve until a signal', () => {
  it('has its SIGINT and SIGTERM handlers in place before it prints that it listens', async () => {
    const before = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
    const handlersWhenPrinted: { SIGINT: number; SIGTERM: number }[] = [];
    let closed = 0;
    const running: RunningToolgraph = {
      origin: 'http://127.0.0.1:4000',
      services: [{ name: 'graph', url: 'http://127.0.0.1:4000/dispatch' }],
      engine: undefined,
      settled: () => Promise.resolve(),
      close: async () => {
        closed += 1;
      },
    };
    const lines: string[] = [];
    const serving = serveUntilSignal(running, {
      out: (line) => {
        lines.push(line);
        handlersWhenPrinted.push({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') });
      },
      err: () => undefined,
    }, 10, silentLogger());
    // Whoever reads the first line may send SIGTERM at once; without a handler by then, the default
    // action would kill the process with its store still locked.
    expect(lines[0]).toBe('toolgraph listening on http://127.0.0.1:4000');
    expect(handlersWhenPrinted).toHaveLength(3);
    for (const counts of handlersWhenPrinted) expect(counts).toEqual({ SIGINT: before.SIGINT + 1, SIGTERM: before.SIGTERM + 1 });
    // Called directly, not through process.emit, so the test runner's own handlers stay out of it.
    (process.listeners('SIGTERM').at(-1) as () => void)();
    await serving;
    expect(closed).toBe(1);
    expect({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') }).toEqual(before);
  });
});
