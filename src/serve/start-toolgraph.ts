import { ToolgraphError } from '../errors/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { startHost, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { SERVICE_FACTORIES, type ServiceName } from './service-factories.ts';

export interface StartOptions {
  config: ResolvedConfig;
  logger: Logger;
  /** Run only these services (all available ones when omitted). */
  only?: readonly ServiceName[];
}

export interface RunningToolgraph {
  origin: string;
  /** One entry per started service: its name and the URL of its entry point. */
  services: { name: string; url: string }[];
  close(): Promise<void>;
}

/** Starts every requested service of the process on one host:port, each under its own paths. */
export async function startToolgraph(options: StartOptions): Promise<RunningToolgraph> {
  const { config, logger } = options;
  const names = options.only ?? Object.keys(SERVICE_FACTORIES);
  const services: HttpService[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    for (const name of names) {
      const factory = SERVICE_FACTORIES[name];
      if (!factory) throw new ToolgraphError('TG_CONFIG_INVALID', `No service named ${name}.`);
      const started = await factory({ config, logger });
      services.push(...started.services);
      if (started.close) closers.push(started.close);
    }
    const host = await startHost({ services, logger, host: config.values.host, port: config.values.port });
    return {
      origin: host.origin,
      services: services.map((s) => ({ name: s.name, url: `${host.origin}${s.entryPath}` })),
      async close() {
        await host.close();
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ToolgraphError('TG_CONFIG_INVALID', `${config.values.host}:${config.values.port} is already in use; choose another --port / PORT.`, { cause: error });
    }
    throw error;
  }
}
