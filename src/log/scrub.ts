/**
 * What keeps credentials out of log lines, applied to every object and string a line carries:
 * - keys that name a credential (or a value the spec forbids logging) are redacted at any depth,
 *   whatever the value looks like (an opaque Vault token is as secret as a JWT);
 * - every known secret value (secret settings, store tokens obtained at run time) is cut out of any
 *   string, error messages included;
 * - bearer credentials and JWT-shaped values are cut out of any string.
 */
import { knownSecretsPattern } from './known-secrets.ts';

const BEARER = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
export const REDACTED = '[REDACTED]';
const TOO_DEEP = '[too deep to log]';
const MAX_DEPTH = 10;

/**
 * Key names (compared case-insensitively, at any depth) whose values never reach a log line: headers
 * and fields that carry credentials, and `query` / `graph` / `envelope`, which the spec forbids logging.
 */
export const REDACT_KEYS: readonly string[] = [
  'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-vault-token', 'x-api-key',
  'token', 'access_token', 'refresh_token', 'id_token', 'subject_token', 'client_token',
  'client_secret', 'clientsecret', 'jwt', 'password', 'passphrase', 'secret', 'secret_id', 'secret_key', 'api_key', 'apikey',
  'envelope', 'query', 'graph',
];
const REDACT = new Set(REDACT_KEYS);

export function scrubString(value: string): string {
  let out = value;
  const known = knownSecretsPattern();
  if (known !== undefined) out = out.replace(known, REDACTED);
  if (!out.includes('ey') && !/bearer/i.test(out)) return out;
  return out.replace(BEARER, `$1 ${REDACTED}`).replace(JWT, REDACTED);
}

export function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object') return value;
  // Past the depth limit nothing is shown: an unchecked value could hold anything.
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  if (value instanceof Error) return scrubError(value, depth);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = REDACT.has(key.toLowerCase()) ? REDACTED : scrubValue(item, depth + 1);
  }
  return out;
}

/**
 * A class instance other than an error (a pg Client, a socket, a request): libraries hang such
 * objects on their errors (pg-pool's `err.client` holds the backend's cancel key, the user and
 * prepared statement text), and none of their fields belongs in a log line.
 */
function isLibraryObject(value: unknown): value is object {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Error) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null;
}

/**
 * Errors are serialised here, keeping their type (`TypeError`, `ToolgraphError`), code and own
 * fields (`details`, `status`, `syscall`…), each scrubbed like any other value; an object of some
 * library's class among them shows only its class name.
 */
function scrubError(error: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: scrubString(error.message) };
  for (const [key, item] of Object.entries(error)) {
    if (key === 'name' || key === 'message' || key === 'stack' || key === 'cause') continue;
    if (REDACT.has(key.toLowerCase())) out[key] = REDACTED;
    else if (isLibraryObject(item)) out[key] = `[${item.constructor?.name || 'object'}]`;
    else out[key] = scrubValue(item, depth + 1);
  }
  if (error.stack) out['stack'] = scrubString(error.stack);
  if (error.cause !== undefined) out['cause'] = scrubValue(error.cause, depth + 1);
  if (error instanceof AggregateError) out['errors'] = scrubValue(error.errors, depth + 1);
  return out;
}
