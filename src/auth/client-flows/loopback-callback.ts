import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolgraphError } from '../../errors/index.ts';
import { isLoopbackHost } from '../resource-server/index.ts';
import { DEFAULT_CALLBACK_PORT } from './constants.ts';

export { DEFAULT_CALLBACK_PORT };
const CALLBACK_PATH = '/callback';

export interface LoopbackCallbackOptions {
  /** Loopback only (127.0.0.0/8, ::1, localhost). Default 127.0.0.1. */
  readonly host?: string;
  /** Default 56121; 0 picks a free port (tests). */
  readonly port?: number;
  readonly path?: string;
}

/** The browser's request to the redirect URI, held open until the code exchange says how it went. */
export interface CallbackRequest {
  readonly url: URL;
  respond(ok: boolean, text: string): void;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const body = `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) }).end(body);
}

/**
 * The redirect URI of the three-legged loopback flow (RFC 8252 §7.3): an HTTP server on the loopback
 * interface that receives the provider's redirect with `code` and `state`. On a remote machine the
 * user's browser reaches it through a forwarded port (`ssh -L 56121:127.0.0.1:56121 user@server`),
 * so it never listens on a public interface.
 */
export class LoopbackCallbackServer {
  readonly redirectUri: string;
  readonly port: number;
  readonly #server: Server;
  readonly #path: string;
  #waiting: { state: string; resolve: (request: CallbackRequest) => void } | undefined;

  private constructor(server: Server, host: string, port: number, path: string) {
    this.#server = server;
    this.#path = path;
    this.port = port;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    this.redirectUri = `http://${hostPart}:${port}${path}`;
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', this.redirectUri);
      if (req.method !== 'GET' || url.pathname !== this.#path) {
        page(res, 404, 'Not found', `This server only answers the sign-in redirect at ${this.#path}.`);
        return;
      }
      const waiting = this.#waiting;
      // A redirect for another (stale or forged) request does not end the wait: only ours does.
      if (!waiting || url.searchParams.get('state') !== waiting.state) {
        page(res, 400, 'Sign-in not recognised', 'This redirect does not belong to the sign-in in progress (its state does not match). Start the sign-in again from the terminal.');
        return;
      }
      this.#waiting = undefined;
      waiting.resolve({
        url,
        respond: (ok, text) => page(res, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', text),
      });
    });
  }

  static async start(options: LoopbackCallbackOptions = {}): Promise<LoopbackCallbackServer> {
    const host = options.host ?? '127.0.0.1';
    if (!isLoopbackHost(host)) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `callback host: expected a loopback address (127.0.0.1, ::1 or localhost), got ${JSON.stringify(host)}; from another machine, forward the port with ssh -L instead`, { details: { host } });
    }
    const port = options.port ?? DEFAULT_CALLBACK_PORT;
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new ToolgraphError('TG_CONFIG_INVALID', `callback port ${host}:${port} is already in use (another sign-in still running?); stop it or choose another port with --callback-port`, { details: { port }, cause: error });
      }
      throw error;
    });
    return new LoopbackCallbackServer(server, host, (server.address() as AddressInfo).port, options.path ?? CALLBACK_PATH);
  }

  /** Resolves with the browser's redirect carrying `state`; fails after `timeoutMs`. */
  wait(state: string, timeoutMs: number): Promise<CallbackRequest> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting = undefined;
        reject(new ToolgraphError('TG_AUTHORIZATION_FAILED', `no sign-in redirect reached ${this.redirectUri} within ${Math.round(timeoutMs / 1000)} s. The browser must reach this loopback port: on a remote server, forward it first with \`ssh -L ${this.port}:127.0.0.1:${this.port} user@server\`.`, { details: { redirectUri: this.redirectUri } }));
      }, timeoutMs);
      timer.unref();
      this.#waiting = {
        state,
        resolve: (request) => {
          clearTimeout(timer);
          resolve(request);
        },
      };
    });
  }

  /** Stops listening; the browser's last answer is flushed first (idle connections close at once). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeIdleConnections();
      setTimeout(() => this.#server.closeAllConnections(), 1000).unref();
    });
  }
}
