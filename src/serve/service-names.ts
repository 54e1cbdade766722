import { ToolgraphError } from '../errors/index.ts';

/** The HTTP services one process can run; `toolgraph serve --only` picks among them. */
export const SERVICE_NAMES = ['graph', 'catalogue', 'tools'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export function parseServiceNames(raw: string): ServiceName[] {
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  if (names.length === 0) throw new ToolgraphError('TG_CONFIG_INVALID', `--only: expected a comma-separated list of ${SERVICE_NAMES.join(', ')}, got ${JSON.stringify(raw)}`);
  for (const name of names) {
    if (!(SERVICE_NAMES as readonly string[]).includes(name)) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `--only: expected a comma-separated list of ${SERVICE_NAMES.join(', ')}, got ${JSON.stringify(name)}`);
    }
  }
  return [...new Set(names)] as ServiceName[];
}
