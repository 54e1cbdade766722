import { mkdtempSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CryptoKey } from 'jose';
import { resolveConfig } from '../../src/config/index.ts';
import { signEnvelope, type SignedEnvelope } from '../../src/graph/carrier/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import type { LoadSource } from '../../src/overload/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { generateSigner } from '../graph/carrier/carrier-fixture.ts';
import { freePort } from '../support/free-port.ts';

export interface HostileTarget {
  readonly running: RunningToolgraph;
  /** The main port's origin. */
  readonly main: string;
  /** The subscription carrier's origin. */
  readonly carrier: string;
  /** A signed carrier request for the demo graph. */
  sign(query?: string): Promise<SignedEnvelope>;
}

/** The whole product (graph service, carrier on, memory store) with these settings. */
export async function startTarget(env: Record<string, string>, loadSource?: LoadSource): Promise<HostileTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-hostile-'));
  const { privateKey, jwks } = await generateSigner();
  writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
  const port = await freePort();
  const config = resolveConfig({
    env: { HOME: dir, PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', SERVICE_GRAPHQL_ADDR: `127.0.0.1:${port}`, SERVICE_GRAPHQL_SIGNER_JWKS: join(dir, 'jwks.json'), ...env },
  });
  const running = await startToolgraph({ config, logger: silentLogger(), only: ['graph'], ...(loadSource ? { loadSource } : {}) });
  const key: CryptoKey = privateKey;
  return {
    running,
    main: running.origin,
    carrier: `http://127.0.0.1:${port}`,
    sign: (query = 'subscription { Organization(first: 1) { name } }') =>
      signEnvelope({ key, alg: 'EdDSA', kid: 'signer-1', graph: 'demo', query, subject: 'ada', scopes: ['query:graphql'] }),
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly ms: number;
}

/**
 * One request on a connection of its own (no agent, no pool): what a new client gets. Resolves on
 * the end of the response (or the first bytes of a stream when `firstBytes`); a connection error rejects.
 */
export function send(origin: string, path: string, options: { method?: string; body?: string; headers?: Record<string, string>; firstBytes?: boolean } = {}): Promise<Answer> {
  const url = new URL(origin);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname, port: url.port, path, method: options.method ?? 'GET', agent: false,
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - started });
      res.on('data', (chunk: string) => {
        body += chunk;
        if (options.firstBytes === true) {
          done();
          req.destroy();
        }
      });
      res.on('end', done);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Cypher through POST /dispatch. */
export function dispatchCypher(origin: string, query: string): Promise<Answer> {
  return send(origin, '/dispatch', { method: 'POST', body: JSON.stringify({ id: 7, graph: 'demo', method: { Cypher: { query, params: {} } } }) });
}

/** Connections that never send a byte, opened a hundred at a time so the listener keeps up with accepting them. */
export class IdleSockets {
  readonly #sockets: Socket[] = [];
  #closed = 0;

  get opened(): number {
    return this.#sockets.length;
  }

  /** How many the server has closed so far. */
  get closed(): number {
    return this.#closed;
  }

  async open(origin: string, count: number): Promise<void> {
    const port = Number(new URL(origin).port);
    for (let i = 0; i < count; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        this.#sockets.push(socket);
        socket.once('connect', () => resolve());
        socket.on('error', reject);
        socket.once('close', () => this.#closed++);
        socket.resume();
      })));
    }
  }

  destroy(): void {
    for (const socket of this.#sockets) socket.destroy();
  }
}
