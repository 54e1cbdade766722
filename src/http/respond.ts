import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgraphError, toToolgraphError } from '../errors/index.ts';
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

/** Writes the documented error body (`{ error: { code, message, details? } }`) with the error's status. */
export function sendError(res: ServerResponse, thrown: unknown, headers: Record<string, string> = {}): ToolgraphError {
  const error = toToolgraphError(thrown);
  noteOutcome(res, error.code, error.details);
  if (!res.headersSent) sendJson(res, error.status, error.toBody(), headers);
  else res.destroy();
  return error;
}

/** What happens to the rest of a body that grows past the limit. */
export type BodyOverflow =
  /** The request stream is destroyed (the default). */
  | 'destroy'
  /** The rest is read and dropped, so the connection stays usable for the refusal and after it. */
  | 'drain';

/**
 * Reads a request body up to `limitBytes`, failing with TG_PAYLOAD_TOO_LARGE past it (a declared
 * length past it is refused before reading; a body that grows past it is cut off as `overflow`
 * says). Event-driven rather than an async iterator, which costs a promise per chunk: this runs on
 * every request of the dispatch and GraphQL hot paths.
 */
export function readBody(req: IncomingMessage, limitBytes: number, overflow: BodyOverflow = 'destroy'): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    return Promise.reject(new ToolgraphError('TG_PAYLOAD_TOO_LARGE', `Request body is ${declared} bytes; this route accepts at most ${limitBytes}.`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limitBytes) {
        done();
        if (overflow === 'drain') req.resume();
        else req.destroy();
        reject(new ToolgraphError('TG_PAYLOAD_TOO_LARGE', `Request body is over ${limitBytes} bytes, the most this route accepts.`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The request path without its query string (never decoded: routing works on the raw path). */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
