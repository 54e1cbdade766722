import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { parse as parseForm } from 'node:querystring';
import { describeValue, ToolgraphError } from '../../errors/index.ts';
import { readBody, readJsonBody } from '../../http/index.ts';
import { CONSENT_PATH } from './oauth-proxy-provider.ts';

const FORM_TYPE = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
/** What the SDK's routes accept (express's body parsers at their default limit): 100 KiB. */
const SDK_BODY_LIMIT = 100 * 1024;
/** The consent form carries a transaction id, a CSRF token and a decision. */
const CONSENT_BODY_LIMIT = 16 * 1024;
/** Client registration (RFC 7591) is the one route of the SDK's router that takes JSON. */
const REGISTER_PATH = '/register';

/** Whether a request carries a body at all (a length, zero included, or chunks), as express's parsers decide. */
function carriesBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

function refuseEncoding(req: IncomingMessage, route: string): void {
  const coding = req.headers['content-encoding'];
  if (coding === undefined || coding.trim().toLowerCase() === 'identity') return;
  throw new ToolgraphError('TG_UNSUPPORTED_MEDIA_TYPE', `${route} reads bodies uncompressed; the request has Content-Encoding ${describeValue(coding.slice(0, 40))}.`);
}

/** A form's text: strict UTF-8 (RFC 6749 §B), the charset parameter naming UTF-8 or nothing. */
function formText(body: Buffer, contentType: string, route: string): string {
  const charset = /;\s*charset="?([^";]*)"?/i.exec(contentType)?.[1]?.trim().toLowerCase();
  if (charset !== undefined && charset !== 'utf-8') {
    throw new ToolgraphError('TG_UNSUPPORTED_MEDIA_TYPE', `${route} reads forms in UTF-8 only; the Content-Type names charset ${describeValue(charset.slice(0, 40))}.`);
  }
  if (!isUtf8(body)) throw new ToolgraphError('TG_BAD_REQUEST', 'The form is not valid UTF-8.');
  return body.toString();
}

/**
 * Reads the body of a request to the sign-in proxy through the one bounded reader (readBody: the
 * process-wide allowance, the body deadline, one buffer however the body is chunked) and returns
 * what express's parser on that route would have put in `req.body`: the form of a form route, the
 * JSON of /register, undefined for another media type or no body (the route's parser would skip it
 * too, and leaves it unread). The SDK's router parses bodies itself with express's parsers, which
 * keep every chunk as an object of its own until the end (hundreds of bytes per one-byte chunk,
 * on routes open to anyone); once the body has been read here they find the request finished and
 * leave `req.body` as it is.
 */
export async function readProxyBody(req: IncomingMessage, path: string): Promise<unknown> {
  // Ended already: the host dropped the body of a GET (or another method that carries none).
  if (!carriesBody(req) || req.readableEnded) return undefined;
  const contentType = req.headers['content-type'] ?? '';
  const type = mediaTypeOf(contentType);
  const route = `${req.method ?? 'POST'} ${path.slice(0, 100)}`;
  if (path === REGISTER_PATH) {
    if (type !== JSON_TYPE) return undefined;
    refuseEncoding(req, route);
    // An empty body is an empty object, as express.json() reads it.
    return readJsonBody(req, { route, limitBytes: SDK_BODY_LIMIT }, (text) => (text === '' ? {} : JSON.parse(text) as unknown));
  }
  if (type !== FORM_TYPE) return undefined;
  refuseEncoding(req, route);
  const body = await readBody(req, { route, limitBytes: path === CONSENT_PATH ? CONSENT_BODY_LIMIT : SDK_BODY_LIMIT });
  // node:querystring, as express reads query strings: a repeated name becomes a list, which the SDK's checks refuse.
  return parseForm(formText(body, contentType, route));
}
