import { ToolgraphError } from '../errors/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';

export interface ServiceContext {
  config: ResolvedConfig;
  logger: Logger;
}

export interface StartedServices {
  services: HttpService[];
  close?: () => Promise<void>;
}

export type ServiceFactory = (context: ServiceContext) => Promise<StartedServices>;

/**
 * The services one process can run. Each later capability adds its factory here; `serve --only`
 * picks among these names.
 */
export const SERVICE_FACTORIES: Readonly<Record<string, ServiceFactory>> = {};

export type ServiceName = string;

/** Checks `--only` names against the services this build has. */
export function parseServiceNames(raw: string): ServiceName[] {
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  const known = Object.keys(SERVICE_FACTORIES);
  for (const name of names) {
    if (!known.includes(name)) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `--only: expected a comma-separated list of ${known.join(', ') || '(no services in this build)'}, got ${JSON.stringify(name)}`);
    }
  }
  return names;
}
