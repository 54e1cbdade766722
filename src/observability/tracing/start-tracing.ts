import type { Logger } from '../../log/index.ts';
import { activeTracing, setActiveTracing } from './active-tracing.ts';
import { tracingConfigFrom } from './tracing-config.ts';

export interface StartTracingOptions {
  /** Where the OTEL_* variables are read (process.env in a server). */
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** service.version of every span's resource. */
  readonly serviceVersion: string;
}

/** Running tracing: `shutdown` exports what the batch still holds, then turns tracing off. */
export interface RunningTracing {
  readonly endpoint: string;
  shutdown(): Promise<void>;
}

/**
 * Turns tracing on when the OTEL_* variables ask for it (tracing-config.ts), loading the SDK only
 * then; answers undefined, having loaded nothing, when they do not. Call it before any service starts:
 * spans begin with the requests that follow. Started twice, the second call answers undefined.
 */
export async function startTracing(options: StartTracingOptions): Promise<RunningTracing | undefined> {
  const config = tracingConfigFrom(options.env);
  if (!config.enabled) {
    if (config.unset !== true) options.logger.info({ reason: config.reason }, 'traces are not exported');
    return undefined;
  }
  if (activeTracing() !== undefined) return undefined;
  const { createOtelTracing } = await import('./otel-tracing.ts');
  const tracing = createOtelTracing({ endpoint: config.endpoint, serviceName: 'toolgraph', serviceVersion: options.serviceVersion });
  setActiveTracing(tracing);
  // Where, without credentials: a URL may carry a user and password, OTEL_EXPORTER_OTLP_HEADERS an API key.
  options.logger.info({ endpoint: withoutCredentials(config.endpoint) }, 'exporting traces over OTLP/HTTP');
  return {
    endpoint: config.endpoint,
    async shutdown() {
      setActiveTracing(undefined);
      try {
        await tracing.shutdown();
      } catch (error) {
        options.logger.warn({ err: error }, 'the last traces could not be exported');
      }
    },
  };
}

function withoutCredentials(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.origin}${url.pathname}`;
  } catch {
    return 'an endpoint that is not a URL';
  }
}
