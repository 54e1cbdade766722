import type { ServerResponse } from 'node:http';

const ON_CLOSED = Symbol('toolgraph.onClosed');
type Watched = ServerResponse & { [ON_CLOSED]?: (this: ServerResponse) => void };

/**
 * Has the host call `listener` (with the response as `this`) when the response closes: after its
 * last byte, or when its connection is cut. The host's own 'close' listener calls it, so watching a
 * response adds no listener of its own (a second one makes every 'close' copy its listener array).
 * One watcher per response; the metrics are it. Only responses of the host (src/http/host.ts) are seen.
 */
export function whenResponseClosed(res: ServerResponse, listener: (this: ServerResponse) => void): void {
  (res as Watched)[ON_CLOSED] = listener;
}

/** Calls the response's watcher, if one was set; the host calls it from its 'close' listener. */
export function notifyResponseClosed(res: ServerResponse): void {
  (res as Watched)[ON_CLOSED]?.call(res);
}
