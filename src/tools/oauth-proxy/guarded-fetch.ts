import { lookup as dnsLookup } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { refusedAddressKind } from './ssrf-guard.ts';

/** A fetch refused or failed; `message` says why, naming the setting that changes it where one does. */
export class GuardedFetchRefused extends Error {
  readonly code = 'TG_CIMD_FETCH_REFUSED';
}

export interface GuardedFetchOptions {
  /** TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES: connect to private, loopback, link-local… addresses too (tests only). */
  readonly allowPrivateAddresses: boolean;
  /** TOOLGRAPH_CIMD_FETCH_TIMEOUT_MS: the whole fetch, from the name lookup to the body's last byte. */
  readonly timeoutMs: number;
  /** TOOLGRAPH_CIMD_MAX_BYTES: the largest body; reading stops once more has come. */
  readonly maxBytes: number;
  /** TOOLGRAPH_CIMD_CA_FILE's PEM: certificates trusted besides Node's own roots. */
  readonly ca?: string;
}

export interface FetchedJson {
  readonly text: string;
  readonly headers: IncomingHttpHeaders;
}

const PRIVATE_HINT = 'set TOOLGRAPH_CIMD_ALLOW_PRIVATE_ADDRESSES=true for tests';

function addressRefusal(host: string, address: string, allow: boolean): GuardedFetchRefused | undefined {
  const kind = allow ? undefined : refusedAddressKind(address);
  if (kind === undefined) return undefined;
  const via = host === address ? '' : ` (${host} resolves to it)`;
  return new GuardedFetchRefused(`its host is the ${kind} address ${address}${via}: private address refused; ${PRIVATE_HINT}`);
}

/**
 * The name lookup of one fetch: every address the name resolves to is checked and, if any is
 * refused, the fetch is; otherwise the socket connects to those checked addresses (the result is
 * handed to net.connect, so no second lookup, and no DNS rebind, comes between check and connect).
 */
function guardedLookup(allow: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, ...(options.family === undefined ? {} : { family: options.family }) }, (error, addresses) => {
      if (error) {
        callback(new GuardedFetchRefused(`its host ${hostname} does not resolve (${error.code ?? error.message})`), '');
        return;
      }
      for (const { address } of addresses) {
        const refusal = addressRefusal(hostname, address, allow);
        if (refusal) {
          callback(refusal, '');
          return;
        }
      }
      const first = addresses[0];
      if (first === undefined) callback(new GuardedFetchRefused(`its host ${hostname} resolves to no address`), '');
      else if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * GET `url` (https only) for a JSON document, bounded every way a client-chosen URL needs: one
 * deadline for the whole exchange, no redirect followed, a JSON media type, at most `maxBytes`
 * (a larger declared length is refused before reading; a body that grows past it is cut off, so
 * no more than one network chunk beyond the cap is ever held), no compression, and no connection
 * to a private, loopback, link-local, unique-local, CGNAT, multicast or unspecified address,
 * checked on the resolved addresses the socket then connects to, and again on the connected peer.
 */
export function guardedFetchJson(url: URL, options: GuardedFetchOptions): Promise<FetchedJson> {
  return new Promise<FetchedJson>((resolve, reject) => {
    if (url.protocol !== 'https:') {
      reject(new GuardedFetchRefused('it is not an https URL'));
      return;
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0) {
      // An address literal is never looked up, so it is checked here.
      const refusal = addressRefusal(host, host, options.allowPrivateAddresses);
      if (refusal) {
        reject(refusal);
        return;
      }
    }
    let settled = false;
    const settle = (outcome: { error: Error } | { value: FetchedJson }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.value);
    };
    const fail = (message: string) => settle({ error: new GuardedFetchRefused(message) });
    const tooLarge = (size: string) => fail(`it is larger than ${options.maxBytes} bytes (${size}); TOOLGRAPH_CIMD_MAX_BYTES raises the cap`);
    const req = request({
      host,
      port: url.port === '' ? 443 : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'toolgraph-oauth-proxy' },
      agent: false,
      lookup: guardedLookup(options.allowPrivateAddresses),
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...(options.ca === undefined ? {} : { ca: [...rootCertificates, options.ca] }),
      maxHeaderSize: 16 * 1024,
    }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const location = typeof res.headers.location === 'string' ? ` to ${res.headers.location.slice(0, 200)}` : '';
        fail(`it answered HTTP ${status} (a redirect${location}); redirects are not followed: the document must be served at the client_id URL itself`);
        return;
      }
      if (status !== 200) {
        fail(`it answered HTTP ${status}, not 200`);
        return;
      }
      const type = mediaTypeOf(res.headers['content-type']);
      if (type !== 'application/json' && !type.endsWith('+json')) {
        fail(`it answered content-type ${JSON.stringify((res.headers['content-type'] ?? '').slice(0, 100))}, not application/json`);
        return;
      }
      const encoding = res.headers['content-encoding'];
      if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
        fail(`it answered content-encoding ${JSON.stringify(encoding.slice(0, 50))}; only an uncompressed document is read`);
        return;
      }
      const declared = Number(res.headers['content-length'] ?? Number.NaN);
      if (declared > options.maxBytes) {
        tooLarge(`content-length ${declared}`);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) tooLarge(`more than ${options.maxBytes} bytes came`);
        else chunks.push(chunk);
      });
      res.on('end', () => {
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
        } catch {
          fail('its body is not UTF-8');
          return;
        }
        settle({ value: { text, headers: res.headers } });
      });
      res.on('error', (error) => fail(`its answer broke off (${(error as NodeJS.ErrnoException).code ?? error.message})`));
    });
    const timer = setTimeout(() => fail(`it did not answer in full within ${options.timeoutMs} ms (TOOLGRAPH_CIMD_FETCH_TIMEOUT_MS)`), options.timeoutMs);
    req.on('socket', (socket) => {
      // The peer actually connected to, checked once more (a literal, or the lookup's checked answer).
      socket.once('connect', () => {
        const refusal = addressRefusal(host, socket.remoteAddress ?? '', options.allowPrivateAddresses);
        if (refusal) settle({ error: refusal });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof GuardedFetchRefused) settle({ error });
      else if (typeof error.code === 'string' && /CERT|SELF_SIGNED|ALTNAME|UNABLE_TO/.test(error.code)) {
        fail(`its TLS certificate does not verify (${error.code}); a private CA can be trusted with TOOLGRAPH_CIMD_CA_FILE`);
      } else fail(`it could not be reached (${error.code ?? error.message})`);
    });
    req.end();
  });
}
