import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgraphError, toToolgraphError } from '../errors/index.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Writes the documented error body (`{ error: { code, message, details? } }`) with the error's status. */
export function sendError(res: ServerResponse, thrown: unknown, headers: Record<string, string> = {}): ToolgraphError {
  const error = toToolgraphError(thrown);
  if (!res.headersSent) sendJson(res, error.status, error.toBody(), headers);
  else res.destroy();
  return error;
}

/** Reads a request body up to `limitBytes`, failing with TG_PAYLOAD_TOO_LARGE past it. */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    throw new ToolgraphError('TG_PAYLOAD_TOO_LARGE', `Request body is ${declared} bytes; this route accepts at most ${limitBytes}.`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > limitBytes) {
      throw new ToolgraphError('TG_PAYLOAD_TOO_LARGE', `Request body is over ${limitBytes} bytes, the most this route accepts.`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

/** The request path without its query string (never decoded: routing works on the raw path). */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
