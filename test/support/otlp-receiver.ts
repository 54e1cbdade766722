import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/JSON carries it (ids in hex), its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:port`: what OTEL_EXPORTER_OTLP_ENDPOINT names (the exporter adds /v1/traces). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Every request body as received, for checks on the exported text itself. */
  readonly bodies: string[];
  readonly resources: Record<string, string | number | boolean>[];
  /** Resolves once `done(spans)` holds (checked after each export), or rejects after `ms`. */
  waitFor(done: (spans: readonly ReceivedSpan[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
type OtlpAttribute = { key: string; value: OtlpValue };

function flatten(attributes: readonly OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue === undefined ? value.doubleValue! : Number(value.intValue));
  }
  return out;
}

/**
 * An OTLP/HTTP traces receiver on loopback: accepts POST /v1/traces in the JSON encoding (the
 * OTLP/HTTP exporter's default) and answers 200 `{}` as the protocol has it; anything else is 404/415.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const resources: Record<string, string | number | boolean>[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      res.writeHead(415).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      const body = JSON.parse(text) as { resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'startTimeUnixNano' | 'endTimeUnixNano'> & { attributes?: OtlpAttribute[]; startTimeUnixNano: string | number; endTimeUnixNano: string | number })[] }[] }[] };
      for (const resourceSpans of body.resourceSpans ?? []) {
        resources.push(flatten(resourceSpans.resource?.attributes));
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({ traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '', name: span.name, kind: span.kind,
              startTimeUnixNano: BigInt(span.startTimeUnixNano), endTimeUnixNano: BigInt(span.endTimeUnixNano), attributes: flatten(span.attributes), status: span.status ?? {} });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    resources,
    waitFor(done, ms = 10_000) {
      if (done(spans)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`the spans expected did not arrive within ${ms} ms; received: ${spans.map((s) => s.name).join(', ')}`));
        }, ms);
        const wake = () => {
          if (!done(spans)) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
