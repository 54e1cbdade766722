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
  /**
   * The rest is read and dropped, up to DRAIN_FACTOR times the limit, before the refusal is
   * answered: the client has sent its whole body by then, so it reads the refusal, even on a
   * connection it asked to close (a server that answers and closes while the client still writes
   * makes the client's write fail with EPIPE or a reset, and the answer is lost). Past that much,
   * the stream is destroyed as with `destroy`.
   */
  | 'drain';

/** How much of a refused body `drain` reads and drops, as a multiple of the route's limit. */
export const DRAIN_FACTOR = 8;

function tooLarge(message: string): ToolgraphError {
  return new ToolgraphError('TG_PAYLOAD_TOO_LARGE', message);
}

/**
 * Reads and drops the rest of a refused body, then rejects with `refusal`; `read` bytes of it are
 * already in. Past `drainTo` bytes in all, the stream is destroyed and the refusal given at once.
 */
function drainThenRefuse(req: IncomingMessage, refusal: ToolgraphError, read: number, drainTo: number): Promise<never> {
  return new Promise((_resolve, reject) => {
    let total = read;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > drainTo) {
        finish();
        req.destroy();
      }
    };
    const finish = (): void => {
      req.off('data', onData);
      req.off('end', finish);
      req.off('error', finish);
      req.off('close', finish);
      reject(refusal);
    };
    req.on('data', onData);
    req.once('end', finish);
    req.once('error', finish);
    req.once('close', finish);
    req.resume();
  });
}

/**
 * Reads a request body up to `limitBytes`, failing with TG_PAYLOAD_TOO_LARGE past it (a declared
 * length past it is refused before anything is kept; a body that grows past it is cut off as
 * `overflow` says). Event-driven rather than an async iterator, which costs a promise per chunk:
 * this runs on every request of the dispatch and GraphQL hot paths.
 */
export function readBody(req: IncomingMessage, limitBytes: number, overflow: BodyOverflow = 'destroy'): Promise<Buffer> {
  const drainTo = overflow === 'drain' ? limitBytes * DRAIN_FACTOR : 0;
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    const refusal = tooLarge(`Request body is ${declared} bytes; this route accepts at most ${limitBytes}.`);
    return declared <= drainTo ? drainThenRefuse(req, refusal, 0, drainTo) : Promise.reject(refusal);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limitBytes) {
        done();
        const refusal = tooLarge(`Request body is over ${limitBytes} bytes, the most this route accepts.`);
        if (overflow === 'drain') {
          drainThenRefuse(req, refusal, total, drainTo).catch(reject);
          return;
        }
        req.destroy();
        reject(refusal);
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
