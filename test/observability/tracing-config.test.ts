import { describe, expect, it } from 'vitest';
import { activeTracing, DEFAULT_OTLP_TRACES_ENDPOINT, startTracing, tracingConfigFrom } from '../../src/observability/tracing/index.ts';
import { captureLogger } from '../support/capture-logger.ts';

describe('tracingConfigFrom: the OTEL_* variables decide whether traces are exported, and where', () => {
  it.each([
    ['nothing set: off', {}, undefined],
    ['OTEL_EXPORTER_OTLP_ENDPOINT: its /v1/traces', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'http://collector:4318/v1/traces'],
    ['a trailing slash is not doubled', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, 'http://collector:4318/v1/traces'],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: as given, and it wins', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' }, 'http://b:4318/custom'],
    ['OTEL_TRACES_EXPORTER=otlp alone: the exporter\'s default endpoint', { OTEL_TRACES_EXPORTER: 'otlp' }, DEFAULT_OTLP_TRACES_ENDPOINT],
    ['OTEL_SDK_DISABLED=true turns it off', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }, undefined],
    ['OTEL_SDK_DISABLED=false leaves it on', { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }, 'http://a:4318/v1/traces'],
    ['OTEL_TRACES_EXPORTER=none turns it off', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }, undefined],
    ['an exporter this build lacks: off', { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }, undefined],
    ['blank values count as unset', { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, undefined],
  ] as const)('%s', (_what, env, endpoint) => {
    const config = tracingConfigFrom(env);
    expect(config.enabled ? config.endpoint : undefined).toBe(endpoint);
    if (!config.enabled) expect(config.reason).toMatch(/OTEL_/);
  });
});

describe('startTracing', () => {
  it.each([
    ['nothing set: off, and silent about it', {}, []],
    ['an exporter this build lacks: off, saying why', { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }, ['OTEL_TRACES_EXPORTER=zipkin names no exporter this build has (otlp, or none)']],
    ['OTEL_SDK_DISABLED=true: off, saying why', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }, ['OTEL_SDK_DISABLED=true']],
  ] as const)('%s', async (_what, env, reasons) => {
    const { logger, lines } = captureLogger('info');
    expect(await startTracing({ env, logger, serviceVersion: '0.0.0' })).toBeUndefined();
    expect(activeTracing()).toBeUndefined();
    expect(lines.map((line) => (JSON.parse(line) as { reason?: string }).reason)).toEqual(reasons);
  });
});
