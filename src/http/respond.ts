import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ToolgraphError, toToolgraphError } from '../errors/index.ts';
import { refusalHeaders } from './refusal-headers.ts';
import { noteOutcome } from './response-outcome.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * Writes the documented error body (`{ error: { code, message, details? } }`) with the error's status
 * and the headers its kind carries (refusalHeaders: Retry-After, Connection: close on a 408).
 */
export function sendError(res: ServerResponse, thrown: unknown, headers: Record<string, string> = {}): ToolgraphError {
  const error = toToolgraphError(thrown);
  noteOutcome(res, error.code, error.details);
  if (!res.headersSent) sendJson(res, error.status, error.toBody(), refusalHeaders(error, headers));
  else res.destroy();
  return error;
}

/** The request path without its query string (never decoded: routing works on the raw path). */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
