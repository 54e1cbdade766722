import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgraphError } from '../../errors/index.ts';
import { sendError, type HttpService } from '../../http/index.ts';
import type { ToolgraphMetrics } from './toolgraph-metrics.ts';

export const METRICS_PATH = '/metrics';

/** Writes the exposition (GET) or its head alone (HEAD), never cached. */
export async function answerScrape(res: ServerResponse, metrics: ToolgraphMetrics, head: boolean): Promise<void> {
  const text = await metrics.scrape();
  res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(head ? undefined : text);
}

/** Refuses anything but GET and HEAD on /metrics; true when the request may go on. */
export function scrapeMethodAllowed(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method ?? 'GET'} is not allowed on ${METRICS_PATH}; use GET.`), { allow: 'GET, HEAD' });
  return false;
}

/**
 * GET /metrics on the main port: the Prometheus text exposition. `authorize` runs first (the
 * composition root requires kg:admin under real auth; bearer authentication wraps this service like
 * every other, so a request without a token is 401 before it gets here).
 */
export function createMetricsService(metrics: ToolgraphMetrics, authorize: (req: IncomingMessage) => Promise<void>): HttpService {
  return {
    name: 'metrics',
    prefixes: [METRICS_PATH],
    entryPath: METRICS_PATH,
    async handle(req, res) {
      if (req.url !== METRICS_PATH && !req.url?.startsWith(`${METRICS_PATH}?`)) {
        sendError(res, new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method ?? 'GET'} ${(req.url ?? '').slice(0, 200)}; metrics are at ${METRICS_PATH}.`));
        return;
      }
      if (!scrapeMethodAllowed(req, res)) return;
      await authorize(req);
      await answerScrape(res, metrics, req.method === 'HEAD');
    },
  };
}
