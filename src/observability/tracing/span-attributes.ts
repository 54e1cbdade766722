/**
 * Every attribute a span of ours may carry. The list is closed so that nothing the spec keeps out of
 * logs reaches an exported span by accident: no token, secret, graph name, query or subscription
 * document, subject or URL path (a path may name a graph) has a name here. Spans say what kind of
 * work ran and how it ended: an operation type, a status, an error code.
 * Names follow the OpenTelemetry semantic conventions where one exists (HTTP, GraphQL, GenAI tool
 * execution, `error.type`); the rest are `toolgraph.*`.
 */
export type SpanAttributeName =
  | 'http.request.method'
  | 'http.response.status_code'
  | 'server.address'
  | 'server.port'
  | 'url.scheme'
  | 'graphql.operation.type'
  | 'gen_ai.operation.name'
  | 'gen_ai.tool.name'
  | 'error.type'
  | 'toolgraph.service'
  | 'toolgraph.tool.action'
  | 'toolgraph.cypher.writes'
  | 'toolgraph.downstream.agent';

export type SpanAttributeValue = string | number | boolean;

export type SpanAttributes = Readonly<Partial<Record<SpanAttributeName, SpanAttributeValue>>>;

/** What the work inside a span may add to it: attributes it learns as it runs, and how it failed. */
export interface SpanHandle {
  set(name: SpanAttributeName, value: SpanAttributeValue): void;
  /** Marks the span failed with an error code (`TG_…`, or a GraphQL code): `error.type` and status ERROR, no message. */
  fail(code: string): void;
}

/** The handle work gets while tracing is off: does nothing, allocates nothing. */
export const NO_SPAN: SpanHandle = Object.freeze({
  set(): void {},
  fail(): void {},
});
