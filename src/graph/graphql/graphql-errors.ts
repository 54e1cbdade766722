import { GraphQLError, type ASTNode, type GraphQLErrorOptions, type GraphQLFormattedError } from 'graphql';
import { ToolgraphError, isToolgraphError, statusOf, type ErrorCode } from '../../errors/index.ts';

/**
 * How an error should set the HTTP status: `status`, unless `spec` (a status the GraphQL-over-HTTP
 * spec fixes only for application/graphql-response+json: parse, validation and variable errors),
 * in which case clients accepting application/json get 200.
 */
export interface HttpHint {
  readonly status: number;
  readonly spec?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ErrorPlace {
  readonly nodes?: readonly ASTNode[] | ASTNode | undefined;
  readonly path?: readonly (string | number)[] | undefined;
}

/** A ToolgraphError (or any GraphQLError) as a GraphQL error whose `extensions.code` is a TG_ code. */
export function toGraphQLError(error: unknown, place: ErrorPlace = {}): GraphQLError {
  if (error instanceof GraphQLError && place.nodes === undefined && place.path === undefined) return error;
  if (error instanceof GraphQLError && !isToolgraphError(error.originalError)) {
    const own = placeOf(error);
    return new GraphQLError(error.message, {
      ...own, nodes: place.nodes ?? own.nodes, path: place.path ?? own.path,
      originalError: error.originalError ?? null, extensions: error.extensions,
    });
  }
  const tg = isToolgraphError(error) ? error : error instanceof GraphQLError && isToolgraphError(error.originalError)
    ? error.originalError : new ToolgraphError('TG_INTERNAL', 'Internal server error.', { cause: error });
  return new GraphQLError(tg.message, {
    nodes: place.nodes ?? null,
    path: place.path ?? null,
    originalError: tg,
    extensions: { code: tg.code, ...(tg.details === undefined ? {} : { details: tg.details }), http: { status: tg.status } },
  });
}

/**
 * Where a GraphQL error points, to carry into a copy of it: its AST nodes and path, and the source
 * positions a syntax error has instead of nodes (without them the copy loses its `locations`).
 */
export function placeOf(error: GraphQLError): Pick<GraphQLErrorOptions, 'nodes' | 'path' | 'source' | 'positions'> {
  return {
    nodes: error.nodes ?? null,
    path: error.path ?? null,
    ...(error.nodes === undefined && error.source !== undefined && error.positions !== undefined ? { source: error.source, positions: error.positions } : {}),
  };
}

/** A GraphQL error with one of our codes, made directly. */
export function graphqlError(code: ErrorCode, message: string, place: ErrorPlace & { details?: Record<string, unknown>; http?: HttpHint } = {}): GraphQLError {
  return new GraphQLError(message, {
    nodes: place.nodes ?? null,
    path: place.path ?? null,
    extensions: {
      code,
      ...(place.details === undefined ? {} : { details: place.details }),
      http: place.http ?? { status: statusOf(code) },
    },
  });
}

/** Thrown through a non-null position: the nearest nullable parent (or the whole data) becomes null. */
export class NullBubble extends Error {
  readonly error: GraphQLError;
  constructor(error: GraphQLError) {
    super(error.message);
    this.error = error;
  }
}

export function httpHintOf(error: GraphQLError): HttpHint | undefined {
  const http = error.extensions?.['http'];
  if (http === null || typeof http !== 'object') return undefined;
  const status = (http as { status?: unknown }).status;
  if (typeof status !== 'number') return undefined;
  const spec = (http as { spec?: unknown }).spec === true;
  const headers = (http as { headers?: unknown }).headers;
  return { status, spec, ...(headers !== null && typeof headers === 'object' ? { headers: headers as Record<string, string> } : {}) };
}

/** The error as it goes on the wire: message, locations, path, extensions without the HTTP hint. */
export function formatError(error: GraphQLError): GraphQLFormattedError {
  const out: { -readonly [K in keyof GraphQLFormattedError]: GraphQLFormattedError[K] } = { message: error.message };
  if (error.locations !== undefined) out.locations = error.locations;
  if (error.path !== undefined) out.path = error.path;
  const extensions = error.extensions;
  if (extensions !== undefined) {
    const rest: Record<string, unknown> = {};
    for (const key of Object.keys(extensions)) if (key !== 'http') rest[key] = extensions[key];
    if (Object.keys(rest).length > 0) out.extensions = rest;
  }
  return out;
}
