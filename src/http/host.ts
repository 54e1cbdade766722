import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolgraphError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import type { HttpService } from './http-service.ts';
import { pathOf, sendError, sendJson } from './respond.ts';

export interface HostOptions {
  services: readonly HttpService[];
  logger: Logger;
}

export interface RunningHost {
  readonly server: Server;
  /** `http://host:port` as bound (port 0 resolved). */
  readonly origin: string;
  /**
   * Adds services once the origin is known (a service may need it, e.g. for the public URLs it
   * publishes). Until then their paths answer 404.
   */
  mount(services: readonly HttpService[]): void;
  close(): Promise<void>;
}

/** Finds the service owning `path`: the longest prefix that equals the path or is followed by `/`. */
export function routeOf(services: readonly HttpService[], path: string): HttpService | undefined {
  let best: HttpService | undefined;
  let bestLength = -1;
  for (const service of services) {
    for (const prefix of service.prefixes) {
      const matches = path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
      if (matches && prefix.length > bestLength) {
        best = service;
        bestLength = prefix.length;
      }
    }
  }
  return best;
}

export function createHostHandler(options: HostOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { services, logger } = options;
  return (req, res) => {
    const path = pathOf(req);
    if (path === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method} is not allowed on /healthz; use GET.`), { allow: 'GET, HEAD' });
        return;
      }
      sendJson(res, 200, { status: 'ok', services: services.map((s) => s.name) });
      return;
    }
    const service = routeOf(services, path);
    if (!service) {
      sendError(res, new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method ?? 'GET'} ${path}.`));
      return;
    }
    Promise.resolve()
      .then(() => service.handle(req, res))
      .catch((error: unknown) => {
        const sent = sendError(res, error);
        if (sent.code === 'TG_INTERNAL') logger.error({ err: error, service: service.name }, 'request failed');
      });
  };
}

export async function startHost(options: HostOptions & { host: string; port: number }): Promise<RunningHost> {
  // The handler reads this array on every request, so mount() takes effect at once.
  const services: HttpService[] = [...options.services];
  const server = createServer(createHostHandler({ services, logger: options.logger }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    origin: `http://${hostPart}:${address.port}`,
    mount(added) {
      services.push(...added);
    },
    async close() {
      await Promise.all(services.map((s) => s.close?.()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
