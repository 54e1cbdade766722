import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolgraphError, toToolgraphError } from '../../errors/index.ts';
import { carriesUnreadBody, ConnectionCap, deadlineOptions } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import { OVERLOAD_RETRY_AFTER_SECS, processOverload, type OverloadSignal } from '../../overload/index.ts';
import type { CarrierAccess } from './carrier-access.ts';
import { DEFAULT_LEDGER_CAPACITY, MemoryReplayLedger, type ReplayLedger } from './replay-ledger.ts';
import type { SignerKeys } from './signer-keys.ts';
import { SUBSCRIBE_PATH } from './subscribe-request.ts';
import { SUBSCRIPTION_SCOPES, subscribeHandshake } from './subscribe-handshake.ts';
import type { SubscriptionExecutor } from './subscription-executor.ts';
import { CarrierResponse, SubscriptionHub, type CarrierGraphs, type HubStats } from './subscription-hub.ts';

/** Keepalive comment interval; access is re-checked on every tick. */
const DEFAULT_KEEPALIVE_MS = 15_000;
/** Unsent bytes a connection may hold in the process (beyond what the kernel buffers); larger frames go in slices. */
const DEFAULT_BUFFER_CAP = 1024 * 1024;
/** A connection must send its request head, first byte included, within this time (TOOLGRAPH_REQUEST_HEAD_TIMEOUT_MS). */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Room for a 32 KiB query percent-encoded in the URL and again inside the envelope. */
const MAX_HEADER_BYTES = 256 * 1024;

export interface CarrierOptions {
  readonly host: string;
  readonly port: number;
  readonly graphs: CarrierGraphs;
  readonly executor: SubscriptionExecutor;
  readonly access: CarrierAccess;
  readonly signerKeys: SignerKeys;
  readonly logger: Logger;
  /** Connections counted from accept (idle ones, handshakes in flight and open streams); past it, 503. */
  readonly maxConnections: number;
  readonly maxSessionSecs: number;
  /** A connection's request head must arrive within this many ms of accepting it; HANDSHAKE_TIMEOUT_MS by default. */
  readonly requestHeadTimeoutMs?: number;
  /** New handshakes are refused with 503 TG_OVERLOADED while it is set; the process's own by default. */
  readonly overload?: OverloadSignal;
  readonly keepaliveMs?: number;
  readonly bufferCap?: number;
  /**
   * TOOLGRAPH_GRAPHQL_LIST_LIMIT: the most items the executor returns of a list without first/limit
   * (the executor's own list limit), so what the query rules price such a nested list at.
   */
  readonly listLimit: number;
  /** TOOLGRAPH_CARRIER_MAX_WORK: the summed complexity of the running subscriptions a new one must fit beside. */
  readonly maxWork: number;
  /** Most live nonces, and most live request ids, remembered (each its own ledger). */
  readonly nonceCapacity?: number;
  /**
   * Where consumed nonces and request ids are kept: the shared state store's ledgers (`serve` passes
   * them, so replicas and restarts refuse a replay); in-process ledgers when omitted.
   */
  readonly ledgers?: { readonly nonces: ReplayLedger; readonly requestIds: ReplayLedger };
  /** Wall-clock milliseconds (envelope expiry); Date.now by default. */
  readonly now?: () => number;
  /**
   * Told how each request ended: `ok` once its stream is open, else the refusal's code (and the
   * limit a TG_QUERY_TOO_COMPLEX names), with the milliseconds it took (the metrics).
   */
  readonly onHandshake?: (outcome: string, ms: number, limit: string | undefined) => void;
}

interface CarrierStats extends HubStats {
  /** Open connections within the cap (idle ones, handshakes in flight, open sessions): what the cap counts. */
  readonly connections: number;
  readonly nonces: number;
  readonly requestIds: number;
}

export interface RunningCarrier {
  readonly host: string;
  readonly port: number;
  readonly origin: string;
  stats(): CarrierStats;
  /** Ends every stream with a final event, then stops listening. */
  close(): Promise<void>;
}

const COMMON_HEADERS = { 'cache-control': 'no-store', connection: 'close' } as const;

function refusalHeaders(error: ToolgraphError): Record<string, string> {
  switch (error.code) {
    case 'TG_ENVELOPE_INVALID':
    case 'TG_NONCE_REPLAYED':
    case 'TG_REQUEST_ID_REPLAYED':
      return { 'www-authenticate': 'Bearer error="invalid_token"' };
    case 'TG_INSUFFICIENT_SCOPE':
      return { 'www-authenticate': `Bearer error="insufficient_scope", scope="${SUBSCRIPTION_SCOPES.join(' ')}"` };
    case 'TG_TOO_MANY_CONNECTIONS':
    case 'TG_RATE_LIMITED':
    case 'TG_CARRIER_WORK_LIMIT':
      return { 'retry-after': '1' };
    case 'TG_OVERLOADED':
      return { 'retry-after': String(OVERLOAD_RETRY_AFTER_SECS) };
    case 'TG_METHOD_NOT_ALLOWED':
      return { allow: 'GET' };
    default:
      return {};
  }
}

/**
 * The subscription carrier: a bare node:http listener on a loopback address that serves only
 * `GET /graphql/subscribe`. Every other path is 404 and every other method (OPTIONS included) 405;
 * there are no CORS headers, no TLS, no default graph and no unsigned mode.
 */
export async function startCarrier(options: CarrierOptions): Promise<RunningCarrier> {
  const { logger } = options;
  // Counted from accept: an idle socket holds a slot like a stream does (one request per connection).
  const cap = new ConnectionCap(options.maxConnections);
  const overload = options.overload ?? processOverload;
  const nonces = options.ledgers?.nonces ?? new MemoryReplayLedger(options.nonceCapacity ?? DEFAULT_LEDGER_CAPACITY);
  const requestIds = options.ledgers?.requestIds ?? new MemoryReplayLedger(options.nonceCapacity ?? DEFAULT_LEDGER_CAPACITY);
  const hub = new SubscriptionHub({
    graphs: options.graphs,
    executor: options.executor,
    access: options.access,
    logger,
    maxSessionMs: options.maxSessionSecs * 1000,
    keepaliveMs: options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS,
    bufferCap: options.bufferCap ?? DEFAULT_BUFFER_CAP,
    maxWork: options.maxWork,
  });
  const deps = {
    signerKeys: options.signerKeys, nonces, requestIds, access: options.access, now: options.now ?? Date.now,
    listLimit: options.listLimit,
  };

  // One handler for every response's close: it frees the slot (every response closes its connection) and the session, if any.
  function onClose(this: CarrierResponse): void {
    cap.release(this.req.socket);
    hub.closed(this);
  }

  const onHandshake = options.onHandshake;
  function refuse(res: CarrierResponse, thrown: unknown, started: number): void {
    const error = toToolgraphError(thrown);
    if (onHandshake !== undefined) {
      const limit = error.details?.['limit'];
      onHandshake(error.code, performance.now() - started, typeof limit === 'string' ? limit : undefined);
    }
    // Codes and statuses only: messages may carry names from the request.
    if (error.code === 'TG_INTERNAL') logger.error({ code: error.code, type: (error.cause as Error | undefined)?.name }, 'carrier handshake failed');
    else logger.debug({ code: error.code, status: error.status }, 'carrier refused a handshake');
    if (res.destroyed) return;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = JSON.stringify(error.toBody());
    res.writeHead(error.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      ...COMMON_HEADERS,
      ...refusalHeaders(error),
    });
    res.end(body);
  }

  async function handle(req: IncomingMessage, res: CarrierResponse): Promise<void> {
    const started = onHandshake === undefined ? 0 : performance.now();
    // No carrier request has a body: one sent anyway is dropped as it comes, never buffered beside a stream.
    if (carriesUnreadBody(req)) req.resume();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (path !== SUBSCRIBE_PATH) {
      refuse(res, new ToolgraphError('TG_NOT_FOUND', `The carrier serves only GET ${SUBSCRIBE_PATH}.`), started);
      return;
    }
    if (req.method !== 'GET') {
      refuse(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${SUBSCRIBE_PATH} accepts only GET (no OPTIONS or CORS: the carrier is not a browser endpoint).`), started);
      return;
    }
    if (cap.isOverflow(req.socket)) {
      refuse(res, new ToolgraphError('TG_TOO_MANY_CONNECTIONS', `The carrier is at its limit of ${cap.max} connections; retry later.`), started);
      return;
    }
    if (overload.overloaded) {
      refuse(res, overload.refusal(), started);
      return;
    }
    res.once('close', onClose);
    try {
      const request = await subscribeHandshake(req, q === -1 ? '' : url.slice(q + 1), deps);
      await hub.open(res, request);
      onHandshake?.('ok', performance.now() - started, undefined);
    } catch (error) {
      refuse(res, error, started);
    }
  }

  const headTimeoutMs = options.requestHeadTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  const server = createServer<typeof IncomingMessage, typeof CarrierResponse>({
    ServerResponse: CarrierResponse,
    maxHeaderSize: MAX_HEADER_BYTES,
    // Every carrier response closes its connection, so keep-alive never applies; a GET has no body.
    ...deadlineOptions({ requestHeadTimeoutMs: headTimeoutMs, keepAliveTimeoutMs: headTimeoutMs }, headTimeoutMs),
    requireHostHeader: true,
  }, (req, res) => {
    void handle(req, res);
  });
  cap.watch(server);

  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException): void => {
      const shown = options.host.includes(':') ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`;
      reject(error.code === 'EADDRINUSE' || error.code === 'EADDRNOTAVAIL'
        ? new ToolgraphError('TG_CONFIG_INVALID', `SERVICE_GRAPHQL_ADDR ${shown} cannot be bound (${error.code}); choose another address.`, { cause: error })
        : error);
    };
    server.once('error', fail);
    server.listen(options.port, options.host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.address;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  logger.info({ address: origin }, 'subscription carrier listening');

  let closing: Promise<void> | undefined;
  return {
    host,
    port: address.port,
    origin,
    stats: () => ({ ...hub.stats(), connections: cap.active, nonces: nonces.size, requestIds: requestIds.size }),
    close() {
      closing ??= (async () => {
        hub.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Streams were ended with a final event; whatever has not gone in a moment is cut.
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        });
        logger.info('subscription carrier stopped');
      })();
      return closing;
    },
  };
}
