import { activeTracing } from './active-tracing.ts';
import { NO_SPAN, type SpanAttributes, type SpanHandle } from './span-attributes.ts';

/**
 * Runs `work` in an internal span `name` while tracing is on; otherwise just runs it (with a handle
 * that does nothing). `work` may return a value or a promise; the span ends when it settles, failed
 * with the error's code when it throws or rejects.
 */
export function inSpan<T>(name: string, attributes: SpanAttributes | undefined, work: (span: SpanHandle) => T): T {
  const tracing = activeTracing();
  return tracing === undefined ? work(NO_SPAN) : tracing.inSpan(name, 'internal', attributes, work);
}

/** A call to another service: a client span, with no `traceparent` to pass on when tracing is off. */
export function inClientCall<T>(name: string, attributes: SpanAttributes | undefined, headers: Record<string, string>, work: (span: SpanHandle) => T): T {
  const tracing = activeTracing();
  return tracing === undefined ? work(NO_SPAN) : tracing.inClientSpan(name, attributes, headers, work);
}

/** A call whose own protocol carries no trace context we can set (an OAuth grant): a client span only. */
export function inClientSpan<T>(name: string, attributes: SpanAttributes | undefined, work: (span: SpanHandle) => T): T {
  const tracing = activeTracing();
  return tracing === undefined ? work(NO_SPAN) : tracing.inSpan(name, 'client', attributes, work);
}
