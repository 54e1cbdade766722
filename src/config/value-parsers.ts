/**
 * Parsers for setting values. Each takes the raw value as it came (a string from the command line
 * or the environment, any JSON value from config.json) and returns the typed value, or `Invalid`.
 * `expected` is the phrase used in error messages: "expected <expected>, got <raw>".
 */
export const Invalid: unique symbol = Symbol('invalid');
export type Invalid = typeof Invalid;

export interface ValueParser<T> {
  expected: string;
  parse(raw: unknown): T | Invalid;
}

export function stringValue(expected = 'a non-empty string'): ValueParser<string> {
  return { expected, parse: (raw) => (typeof raw === 'string' && raw.length > 0 ? raw : Invalid) };
}

export function integerIn(min: number, max: number): ValueParser<number> {
  return {
    expected: `an integer from ${min} to ${max}`,
    parse(raw) {
      const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
      if (!/^-?\d+$/.test(text)) return Invalid;
      const value = Number(text);
      return Number.isSafeInteger(value) && value >= min && value <= max ? value : Invalid;
    },
  };
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function booleanValue(): ValueParser<boolean> {
  return {
    expected: 'a boolean (true/false, 1/0, yes/no, on/off)',
    parse(raw) {
      if (typeof raw === 'boolean') return raw;
      if (typeof raw !== 'string') return Invalid;
      const text = raw.trim().toLowerCase();
      if (TRUE.has(text)) return true;
      if (FALSE.has(text)) return false;
      return Invalid;
    },
  };
}

export function oneOf<const T extends string>(values: readonly T[]): ValueParser<T> {
  return {
    expected: `one of ${values.join(', ')}`,
    parse: (raw) => (typeof raw === 'string' && (values as readonly string[]).includes(raw) ? (raw as T) : Invalid),
  };
}

export function httpUrl(): ValueParser<string> {
  return {
    expected: 'an absolute http(s) URL',
    parse(raw) {
      if (typeof raw !== 'string' || !URL.canParse(raw)) return Invalid;
      const url = new URL(raw);
      return url.protocol === 'http:' || url.protocol === 'https:' ? raw : Invalid;
    },
  };
}

/** A lower-case SQL identifier, safe to quote into statements (a PostgreSQL schema name). */
export function sqlName(): ValueParser<string> {
  return { expected: 'a lower-case SQL name matching ^[a-z_][a-z0-9_]{0,39}$', parse: (raw) => (typeof raw === 'string' && /^[a-z_][a-z0-9_]{0,39}$/.test(raw) ? raw : Invalid) };
}

export function postgresUrl(): ValueParser<string> {
  return {
    expected: 'a postgres:// or postgresql:// URL',
    parse(raw) {
      if (typeof raw !== 'string' || !URL.canParse(raw)) return Invalid;
      const protocol = new URL(raw).protocol;
      return protocol === 'postgres:' || protocol === 'postgresql:' ? raw : Invalid;
    },
  };
}

/** Where trusted signer keys come from: a JWKS file (absolute path) or a JWKS URL. */
export function jwksLocation(): ValueParser<string> {
  return {
    expected: 'an absolute path to a JWKS file or an absolute http(s) URL serving one',
    parse(raw) {
      if (typeof raw !== 'string') return Invalid;
      if (raw.startsWith('/')) return raw;
      return httpUrl().parse(raw);
    },
  };
}

export function absolutePath(): ValueParser<string> {
  return { expected: 'an absolute path', parse: (raw) => (typeof raw === 'string' && raw.startsWith('/') ? raw : Invalid) };
}

export interface ListenAddress {
  host: string;
  port: number;
}

/** The SSE carrier's default address when it is enabled without one (spec, Limits). */
const DEFAULT_CARRIER_ADDRESS: ListenAddress = { host: '127.0.0.1', port: 7879 };
/** The metrics listener's address for TOOLGRAPH_METRICS_LISTEN=on (Prometheus's registered port for the Node.js client). */
export const DEFAULT_METRICS_ADDRESS: ListenAddress = { host: '127.0.0.1', port: 9464 };

function isLoopbackLiteral(host: string): boolean {
  if (host === '::1') return true;
  const parts = host.split('.');
  if (parts.length !== 4 || parts[0] !== '127') return false;
  return parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

/**
 * A loopback `host:port` (`127.0.0.1:7879`, `[::1]:7879`), or `on` for the default address.
 * Only literal loopback addresses pass: a name like `localhost` could resolve elsewhere.
 */
export function loopbackAddress(on: ListenAddress = DEFAULT_CARRIER_ADDRESS): ValueParser<ListenAddress> {
  return {
    expected: `a loopback address host:port (127.0.0.0/8 or [::1], port 1-65535) or "on" for ${on.host}:${on.port}`,
    parse(raw) {
      if (typeof raw !== 'string') return Invalid;
      if (raw === 'on') return on;
      const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(raw);
      if (!match) return Invalid;
      const host = match[1] ?? match[2] ?? '';
      const port = Number(match[3]);
      if (!isLoopbackLiteral(host) || port < 1 || port > 65535) return Invalid;
      return { host, port };
    },
  };
}

export function listenHost(): ValueParser<string> {
  return {
    expected: 'an IP address or host name to bind',
    parse: (raw) => (typeof raw === 'string' && /^[A-Za-z0-9.:\-[\]]+$/.test(raw) ? raw.replace(/^\[(.*)\]$/, '$1') : Invalid),
  };
}
