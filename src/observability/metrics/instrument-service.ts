import type { IncomingMessage, ServerResponse } from 'node:http';
import { outcomeOf, pathOf, whenResponseClosed, type HttpService } from '../../http/index.ts';
import type { Surface } from './surfaces.ts';
import type { SurfaceRecorder, ToolgraphMetrics } from './toolgraph-metrics.ts';

const STARTED = Symbol('toolgraph.metrics.started');
const RECORDER = Symbol('toolgraph.metrics.recorder');
type Timed = ServerResponse & { [STARTED]: number; [RECORDER]: SurfaceRecorder };

/**
 * One function for every timed response, called by the host when the response closes (after the
 * last byte, or when the connection is cut): no closure and no listener of its own per request. The
 * outcome is what the service noted on the response (src/http/response-outcome.ts), else `ok` below
 * 400 and HTTP_<status> from 400 on.
 */
function ended(this: ServerResponse): void {
  const timed = this as Timed;
  const seconds = (performance.now() - timed[STARTED]) / 1000;
  const noted = outcomeOf(timed);
  const outcome = noted?.code ?? (timed.statusCode < 400 ? 'ok' : `HTTP_${timed.statusCode}`);
  timed[RECORDER].record(outcome, seconds, noted?.limit);
}

/** Which surface a request to this service belongs to (by path for the graph service). */
export type SurfaceOf = Surface | ((path: string) => Surface);

/** The service, its requests counted and timed under `surface`. */
export function instrumentService(service: HttpService, surface: SurfaceOf, metrics: ToolgraphMetrics): HttpService {
  const fixed = typeof surface === 'string' ? metrics.surface(surface) : undefined;
  const recorders = new Map<Surface, SurfaceRecorder>();
  const recorderOf = (path: string): SurfaceRecorder => {
    const name = (surface as (path: string) => Surface)(path);
    let recorder = recorders.get(name);
    if (recorder === undefined) recorders.set(name, (recorder = metrics.surface(name)));
    return recorder;
  };
  const inner = service.handle.bind(service);
  return {
    name: service.name,
    prefixes: service.prefixes,
    entryPath: service.entryPath,
    handle(req: IncomingMessage, res: ServerResponse) {
      const timed = res as Timed;
      timed[STARTED] = performance.now();
      timed[RECORDER] = fixed ?? recorderOf(pathOf(req));
      whenResponseClosed(res, ended);
      return inner(req, res);
    },
    ...(service.close ? { close: () => service.close!() } : {}),
  };
}
