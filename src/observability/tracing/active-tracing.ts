import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SpanAttributes, SpanHandle } from './span-attributes.ts';

/**
 * What instrumented code calls while tracing is on. Implemented over the OpenTelemetry SDK in
 * otel-tracing.ts, which only start-tracing.ts imports (lazily): nothing here loads the SDK.
 */
export interface Tracing {
  /** Runs `work` inside a new span, child of the active one; ends it when `work` returns or settles. */
  inSpan<T>(name: string, kind: 'internal' | 'client', attributes: SpanAttributes | undefined, work: (span: SpanHandle) => T): T;
  /**
   * As inSpan with kind client, and the span's context written into `headers` (W3C `traceparent`,
   * and `tracestate` when there is one) before `work` sends them.
   */
  inClientSpan<T>(name: string, attributes: SpanAttributes | undefined, headers: Record<string, string>, work: (span: SpanHandle) => T): T;
  /**
   * The server span of one HTTP request, the caller's `traceparent` its parent. `work` runs in its
   * context (and so does every continuation of it); it ends when the response closes.
   */
  serve<T>(req: IncomingMessage, res: ServerResponse, name: string, attributes: SpanAttributes, work: () => T): T;
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

/** The process's tracing while it is on; undefined (the default) costs a call and a compare. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/** Set once by startTracing (and cleared by its shutdown). */
export function setActiveTracing(tracing: Tracing | undefined): void {
  active = tracing;
}
