import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolgraphError } from '../../errors/index.ts';
import { pathOf, sendError } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import { answerScrape, METRICS_PATH, scrapeMethodAllowed } from './metrics-service.ts';
import type { ToolgraphMetrics } from './toolgraph-metrics.ts';

export interface MetricsListener {
  /** `http://host:port` as bound. */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * A listener of its own for Prometheus on a loopback address (TOOLGRAPH_METRICS_LISTEN): GET
 * /metrics with no token, nothing else. Reachable only from this machine (a sidecar, a node agent);
 * a request whose Host names anything but this address is refused, so a web page cannot read it
 * through DNS rebinding.
 */
export async function startMetricsListener(address: { host: string; port: number }, metrics: ToolgraphMetrics, logger: Logger): Promise<MetricsListener> {
  let allowed: ReadonlySet<string> = new Set();
  const server: Server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    if (!allowed.has((req.headers.host ?? '').toLowerCase())) {
      sendError(res, new ToolgraphError('TG_FORBIDDEN', `This listener answers only requests addressed to ${[...allowed][0] ?? 'its loopback address'}.`));
      return;
    }
    if (pathOf(req) !== METRICS_PATH) {
      sendError(res, new ToolgraphError('TG_NOT_FOUND', `This listener serves only GET ${METRICS_PATH}.`));
      return;
    }
    if (!scrapeMethodAllowed(req, res)) return;
    answerScrape(res, metrics, req.method === 'HEAD').catch((error: unknown) => {
      logger.error({ err: error }, 'metrics scrape failed');
      sendError(res, error);
    });
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException): void => {
      reject(new ToolgraphError('TG_CONFIG_INVALID', `TOOLGRAPH_METRICS_LISTEN ${address.host}:${address.port} cannot be bound (${error.code ?? error.message}); choose another address.`, { cause: error }));
    };
    server.once('error', fail);
    server.listen(address.port, address.host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const hostPart = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  allowed = new Set([`${hostPart}:${bound.port}`, `localhost:${bound.port}`]);
  const origin = `http://${hostPart}:${bound.port}`;
  logger.info({ address: origin }, 'metrics listener on loopback: GET /metrics without a token');
  return {
    origin,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
