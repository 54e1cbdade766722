/**
 * Whether this process exports traces, read from the OpenTelemetry SDK's own environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). Off unless an
 * OTLP endpoint is named (or OTEL_TRACES_EXPORTER=otlp asks for the default one), so a server started
 * without them loads no part of the SDK. Everything else (sampler, batch delays, headers, resource
 * attributes) the SDK reads itself.
 */
export type TracingConfig =
  /** `unset`: no variable asked for traces (the default, said nowhere); otherwise one turned them off. */
  | { readonly enabled: false; readonly reason: string; readonly unset?: true }
  | { readonly enabled: true; readonly endpoint: string };

/** The OTLP/HTTP exporter's default when no endpoint variable is set (OTEL_TRACES_EXPORTER=otlp alone). */
export const DEFAULT_OTLP_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

/** The variables a deployment sets; README "Tracing" documents each. */
const TRACING_ENV = {
  disabled: 'OTEL_SDK_DISABLED',
  exporter: 'OTEL_TRACES_EXPORTER',
  endpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  tracesEndpoint: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  serviceName: 'OTEL_SERVICE_NAME',
} as const;

function set(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function tracingConfigFrom(env: NodeJS.ProcessEnv): TracingConfig {
  if (set(env, TRACING_ENV.disabled)?.toLowerCase() === 'true') return { enabled: false, reason: `${TRACING_ENV.disabled}=true` };
  const exporters = (set(env, TRACING_ENV.exporter) ?? '').toLowerCase().split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (exporters.includes('none')) return { enabled: false, reason: `${TRACING_ENV.exporter}=none` };
  if (exporters.length > 0 && !exporters.includes('otlp')) {
    return { enabled: false, reason: `${TRACING_ENV.exporter}=${exporters.join(',')} names no exporter this build has (otlp, or none)` };
  }
  const traces = set(env, TRACING_ENV.tracesEndpoint);
  if (traces !== undefined) return { enabled: true, endpoint: traces };
  const base = set(env, TRACING_ENV.endpoint);
  if (base !== undefined) return { enabled: true, endpoint: `${base.replace(/\/+$/, '')}/v1/traces` };
  if (exporters.includes('otlp')) return { enabled: true, endpoint: DEFAULT_OTLP_TRACES_ENDPOINT };
  return { enabled: false, reason: `neither ${TRACING_ENV.tracesEndpoint} nor ${TRACING_ENV.endpoint} is set`, unset: true };
}
