import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Tracing } from './active-tracing.ts';
import { errorTypeOf } from './error-type.ts';
import type { SpanAttributeName, SpanAttributeValue, SpanHandle } from './span-attributes.ts';

/**
 * The OpenTelemetry SDK behind Tracing: a NodeTracerProvider (its sampler from OTEL_TRACES_SAMPLER
 * and _ARG, parent-based always-on by default), a batch span processor (OTEL_BSP_*) and the OTLP/HTTP
 * JSON exporter, registered globally with the AsyncLocalStorage context manager and the W3C trace
 * context propagator. Loaded only when tracing is on (start-tracing.ts imports it lazily).
 */
export interface OtelTracingOptions {
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  readonly endpoint: string;
  /** service.name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names another. */
  readonly serviceName: string;
  readonly serviceVersion: string;
}

const TRACER_NAME = 'toolgraph';

class Handle implements SpanHandle {
  readonly #span: Span;
  constructor(span: Span) {
    this.#span = span;
  }
  set(name: SpanAttributeName, value: SpanAttributeValue): void {
    this.#span.setAttribute(name, value);
  }
  fail(code: string): void {
    this.#span.setAttribute('error.type', code);
    this.#span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/** Runs `work` in `span`'s context; ends the span when it returns, throws or settles. */
function runIn<T>(span: Span, parent: Context, work: (handle: SpanHandle) => T): T {
  const handle = new Handle(span);
  const failed = (thrown: unknown): void => {
    handle.fail(errorTypeOf(thrown));
    span.end();
  };
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), work, undefined, handle);
  } catch (thrown) {
    failed(thrown);
    throw thrown;
  }
  if (!isThenable(result)) {
    span.end();
    return result;
  }
  return (result as PromiseLike<unknown>).then((value) => {
    span.end();
    return value;
  }, (thrown: unknown) => {
    failed(thrown);
    throw thrown;
  }) as T;
}

const headerSetter = {
  set(carrier: Record<string, string>, key: string, value: string): void {
    carrier[key] = value;
  },
};

export function createOtelTracing(options: OtelTracingOptions): Tracing {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_VERSION]: options.serviceVersion })
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.endpoint }))],
  });
  provider.register();
  const tracer: Tracer = provider.getTracer(TRACER_NAME, options.serviceVersion);

  return {
    inSpan(name, kind, attributes, work) {
      const parent = context.active();
      const span = tracer.startSpan(name, { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, ...(attributes ? { attributes } : {}) }, parent);
      return runIn(span, parent, work);
    },
    inClientSpan(name, attributes, headers, work) {
      const parent = context.active();
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, ...(attributes ? { attributes } : {}) }, parent);
      propagation.inject(trace.setSpan(parent, span), headers, headerSetter);
      return runIn(span, parent, work);
    },
    serve(req: IncomingMessage, res: ServerResponse, name, attributes, work) {
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
      const active = trace.setSpan(parent, span);
      // The request and response are not bound to the context (as instrumentation-http does): every
      // service reads its body through an awaited promise, whose continuation keeps the context.
      res.once('close', () => {
        const status = res.statusCode;
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        else if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
        span.end();
      });
      return context.with(active, work);
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
