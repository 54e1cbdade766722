import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ToolgraphError, describeValue, isToolgraphError, notJsonError } from '../errors/index.ts';
import { readBody, type BodyReadOptions } from './read-body.ts';

/** How a route reads its JSON body: as any body (readBody), then checked as JSON. */
export type JsonBodyOptions = BodyReadOptions;

const JSON_TYPE = 'application/json';
const BYTE_ORDER_MARK = 0xfeff;

/** The charset a Content-Type names (lower case, quotes removed), or undefined when it names none. */
function charsetOf(parameters: readonly string[]): string | undefined {
  for (const p of parameters) {
    if (!p.startsWith('charset=')) continue;
    const value = p.slice('charset='.length);
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/**
 * Why a request's Content-Type is not JSON this server reads: 415 TG_UNSUPPORTED_MEDIA_TYPE for a
 * missing or other media type, and for a charset other than UTF-8 (RFC 8259 JSON is UTF-8; a body
 * in latin1 would be misread, so it is refused rather than guessed at). Undefined when it is
 * `application/json`, with or without `charset=utf-8`.
 */
export function jsonMediaTypeRefusal(contentType: string | undefined, route: string): ToolgraphError | undefined {
  if (contentType === JSON_TYPE) return undefined;
  const [type, ...parameters] = (contentType ?? '').split(';').map((s) => s.trim().toLowerCase());
  if (contentType === undefined || type !== JSON_TYPE) {
    return new ToolgraphError('TG_UNSUPPORTED_MEDIA_TYPE', `${route} accepts only Content-Type: application/json (UTF-8); got ${contentType === undefined ? 'none' : describeValue(contentType.slice(0, 100))}.`);
  }
  const charset = charsetOf(parameters);
  if (charset === undefined || charset === 'utf-8') return undefined;
  return new ToolgraphError('TG_UNSUPPORTED_MEDIA_TYPE', `${route} reads JSON in UTF-8 only; the Content-Type names charset ${describeValue(charset.slice(0, 40))}. Send the body in UTF-8 (charset=utf-8, or no charset).`, {
    details: { charset: charset.slice(0, 40) },
  });
}

/**
 * A JSON body's text: the bytes decoded as strict UTF-8 (invalid UTF-8 is 400 TG_BAD_REQUEST, never
 * replaced by U+FFFD; a byte-order mark is dropped).
 */
function jsonText(body: Buffer): string {
  // Checked, then decoded: both native and about twice as fast as a fatal TextDecoder on small bodies.
  if (!isUtf8(body)) throw new ToolgraphError('TG_BAD_REQUEST', 'The body is not valid UTF-8.');
  // toString() without an encoding decodes UTF-8 directly; naming 'utf8' looks the encoding up first.
  const text = body.toString();
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}

/**
 * Reads a JSON body: the media type checked (jsonMediaTypeRefusal), the size limit enforced while
 * reading, in memory bounded per body and across bodies (readBody), the text decoded (jsonText) and parsed with `parse` (JSON.parse by default).
 * A parser's own ToolgraphError goes through as it is; anything else it throws is a body that is
 * not JSON: 400 TG_BAD_REQUEST (notJsonError). One async function awaiting the body itself: each
 * async layer between a route and the body costs its promise on every request of the hot paths.
 */
export async function readJsonBody<T = unknown>(req: IncomingMessage, options: JsonBodyOptions, parse: (text: string) => T = JSON.parse): Promise<T> {
  const refusal = jsonMediaTypeRefusal(req.headers['content-type'], options.route);
  if (refusal !== undefined) throw refusal;
  const text = jsonText(await readBody(req, options));
  try {
    return parse(text);
  } catch (error) {
    if (isToolgraphError(error)) throw error;
    throw notJsonError('The body', error);
  }
}
