import { ToolgraphError } from '../errors/index.ts';
import { scrubString } from '../log/index.ts';

export interface StoreHttpOptions {
  /** The store's base URL (SECRETS_STORE_URL); `/v1/...` is appended. */
  url: string;
  fetch?: typeof fetch;
  /** Per-request time limit; a store that does not answer in time counts as unavailable. */
  timeoutMs?: number;
}

export interface StoreAnswer {
  status: number;
  body: unknown;
}

/** The few calls the secrets backend makes to a Vault-compatible HTTP API. */
export class StoreHttp {
  readonly #base: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: StoreHttpOptions) {
    this.#base = options.url.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  get url(): string {
    return this.#base;
  }

  /** `path` is relative to `/v1/` and already encoded. 5xx and network faults become TG_SECRETS_STORE_UNAVAILABLE. */
  async request(method: 'GET' | 'POST', path: string, options: { token?: string; body?: unknown } = {}): Promise<StoreAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.token !== undefined) headers['x-vault-token'] = options.token;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}/v1/${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${this.#timeoutMs} ms` : describeFetchFailure(error);
      // The URL alone does not say where it came from; the setting does, and is what to fix.
      throw new ToolgraphError('TG_SECRETS_STORE_UNAVAILABLE', `secrets store at ${this.#base} (SECRETS_STORE_URL) could not be reached: ${reason}`, { cause: error, details: { url: this.#base, setting: 'SECRETS_STORE_URL' } });
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.status >= 500) {
      throw new ToolgraphError('TG_SECRETS_STORE_UNAVAILABLE', `secrets store at ${this.#base} answered HTTP ${response.status}${storeErrorsSuffix(body)}; expected a 2xx, 403 or 404 answer`, { details: { url: this.#base, status: response.status } });
    }
    return { status: response.status, body };
  }
}

function describeFetchFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return (error as Error).message;
}

/**
 * The store's own `errors` array (Vault's error shape), scrubbed and shortened, as a message suffix.
 * These texts name the failing check ("invalid audience"), never a credential.
 */
export function storeErrorsSuffix(body: unknown): string {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return '';
  const text = errors.filter((e): e is string => typeof e === 'string').join('; ');
  if (text === '') return '';
  const short = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  return ` (${scrubString(short)})`;
}
