export { activeTracing } from './active-tracing.ts';
export { errorTypeOf } from './error-type.ts';
export { inClientCall, inClientSpan, inSpan } from './in-span.ts';
export type { SpanHandle } from './span-attributes.ts';
export { startTracing } from './start-tracing.ts';
export { DEFAULT_OTLP_TRACES_ENDPOINT, tracingConfigFrom } from './tracing-config.ts';
