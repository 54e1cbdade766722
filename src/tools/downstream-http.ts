import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ToolgraphError } from '../errors/index.ts';
import { inClientCall } from '../observability/tracing/index.ts';

/** Largest downstream answer a tool reads: 8 MiB (a tool result is read by a model, not streamed). */
const MAX_DOWNSTREAM_BYTES = 8 * 1024 * 1024;

interface DownstreamResponse {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

interface DownstreamRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  readonly signal?: AbortSignal | undefined;
}

export interface DownstreamHttpOptions {
  /** The agent's name, for messages ("the crm API"). */
  readonly name: string;
  /** Check the server's TLS certificate (an agent's ssl_verify). */
  readonly sslVerify: boolean;
  readonly timeoutMs: number;
  readonly maxBytes?: number;
}

/** One downstream API's HTTP client: keep-alive connections, a timeout, a size cap, and TLS checks unless the agent turns them off. */
export interface DownstreamHttp {
  send(request: DownstreamRequest): Promise<DownstreamResponse>;
  close(): void;
}

function failed(message: string, cause?: unknown, details: Record<string, unknown> = {}): ToolgraphError {
  return new ToolgraphError('TG_DOWNSTREAM_FAILED', message, { details, ...(cause === undefined ? {} : { cause }) });
}

const TLS_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']);

/**
 * node:http(s) rather than fetch: fetch cannot turn certificate checks off per agent without
 * undici's own Agent, and a self-hosted API with a private CA is exactly what ssl_verify=false is for.
 */
export function createDownstreamHttp(options: DownstreamHttpOptions): DownstreamHttp {
  const maxBytes = options.maxBytes ?? MAX_DOWNSTREAM_BYTES;
  const http = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const https = new HttpsAgent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: options.sslVerify });
  const api = `the ${options.name} API`;

  return {
    send(req) {
      const secure = req.url.protocol === 'https:';
      const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
      const headers: Record<string, string> = { ...req.headers };
      if (body !== undefined) headers['content-length'] = String(body.length);
      // A client span whose traceparent goes with the request; its attributes name the server, never the path or query.
      return inClientCall(req.method, {
        'http.request.method': req.method, 'server.address': req.url.hostname, 'server.port': Number(req.url.port || (secure ? 443 : 80)),
        'url.scheme': secure ? 'https' : 'http', 'toolgraph.downstream.agent': options.name,
      }, headers, (span) => new Promise<DownstreamResponse>((resolve, reject) => {
        const outgoing = (secure ? httpsRequest : httpRequest)(req.url, {
          method: req.method,
          headers,
          agent: secure ? https : http,
          timeout: options.timeoutMs,
          ...(req.signal ? { signal: req.signal } : {}),
        }, (res) => {
          const chunks: Buffer[] = [];
          let total = 0;
          res.on('data', (chunk: Buffer) => {
            total += chunk.length;
            if (total > maxBytes) {
              res.destroy();
              reject(failed(`${api} answered more than ${maxBytes} bytes, the most a tool reads.`, undefined, { agent: options.name }));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            span.set('http.response.status_code', status);
            if (status >= 400) span.fail(String(status));
            resolve({ status, headers: res.headers, body: Buffer.concat(chunks, total) });
          });
          res.on('error', (error) => reject(failed(`${api} broke off its answer (${(error as NodeJS.ErrnoException).code ?? error.message}).`, error, { agent: options.name })));
        });
        outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          const code = error.code ?? error.name;
          if (code === 'ETIMEDOUT') reject(failed(`${api} at ${req.url.origin} did not answer within ${Math.round(options.timeoutMs / 1000)} s (its timeout_secs).`, error, { agent: options.name, reason: 'timeout' }));
          else if (code === 'ABORT_ERR') reject(failed(`The call to ${api} was cancelled.`, error, { agent: options.name, reason: 'cancelled' }));
          else if (TLS_CODES.has(code)) reject(failed(`${api} at ${req.url.origin} presented a TLS certificate that does not verify (${code}); trust its CA (NODE_EXTRA_CA_CERTS) or, for a test system only, set the agent's ssl_verify to false.`, error, { agent: options.name, reason: 'tls' }));
          else reject(failed(`${api} at ${req.url.origin} could not be reached (${code}).`, error, { agent: options.name, reason: 'unreachable' }));
        });
        outgoing.end(body);
      }));
    },
    close() {
      http.destroy();
      https.destroy();
    },
  };
}
