import type { SchemaManifest } from '../../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../../errors/index.ts';
import { isDigest } from '../limits.ts';
import { normalizeBaseUrl } from '../public-urls.ts';
import { assertSchemaManifest } from '../validate-manifest.ts';
import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
import { fetchBytes, HttpStatusError, isUnreachable } from './fetch-bytes.ts';
import { fetchHttpGet, nodeHttpGet, type FetchLike, type HttpGet } from './http-get.ts';
import { fetchFragments } from './fetch-fragments.ts';
import { SchemaCache } from './schema-cache.ts';
import { assertFetchable, SchemaVerifier, verifySchemaDocument, type VerifiedSchema } from './verify-schema.ts';

import { DEFAULT_CONCURRENCY, DEFAULT_RETRIES } from '../constants.ts';

export { DEFAULT_CONCURRENCY };
const DEFAULT_CATALOGUE_URL = 'http://127.0.0.1:4000';
export const DEFAULT_PIPELINE_SOCKETS = 2;
const MAX_MANIFEST_BYTES = 64 * 1024;
const MAX_SEARCH_BYTES = 8 * 1024 * 1024;

export interface SchemaClientOptions {
  /** Base URL of the catalogue (where `/schemas/...` lives). */
  url?: string;
  /** Directory of the content-addressed cache (`<cacheDir>/schemas/`); no cache when undefined. */
  cacheDir?: string;
  /** Use this `fetch` instead of the built-in keep-alive node:http transport (tests rewrite answers with it). */
  fetch?: FetchLike;
  /** Retries per request after the first attempt. */
  retries?: number;
  /** Fragments downloaded at once. */
  concurrency?: number;
  backoff?: BackoffOptions;
  /**
   * Raw keep-alive sockets to pipeline fragment requests over (http: catalogues, built-in transport
   * only; 0 turns pipelining off). `concurrency` still bounds the requests in flight across them.
   */
  pipelineSockets?: number;
}

export interface SearchHitView {
  readonly manifest: SchemaManifest;
  readonly score: number;
  readonly description: string;
}

export interface GetOptions {
  /** Called once the manifest is known and accepted, before any fragment is fetched. */
  onManifest?: (manifest: SchemaManifest) => void;
  onProgress?: (bytesDone: number, bytesTotal: number) => void;
}

export interface FetchedSchema {
  readonly manifest: SchemaManifest;
  /** The verified canonical document, byte for byte. */
  readonly document: Buffer;
  readonly schema: VerifiedSchema;
  /** Where the bytes came from. */
  readonly from: 'cache' | 'network';
}

/**
 * The verified-fetch client of the schema catalogue. `get` resolves a name (operation, alias or
 * digest) to a manifest, validates it, refuses oversize or inconsistent manifests before fetching,
 * downloads the fragments concurrently with retries, and verifies length and all three digests.
 */
export class SchemaClient {
  readonly url: string;
  readonly #get: HttpGet;
  readonly #close: () => void;
  readonly #retries: number;
  readonly #concurrency: number;
  readonly #backoff: BackoffOptions;
  readonly #cache: SchemaCache | undefined;
  readonly #pipelineSockets: number;

  constructor(options: SchemaClientOptions = {}) {
    this.url = normalizeBaseUrl(options.url ?? DEFAULT_CATALOGUE_URL);
    this.#retries = options.retries ?? DEFAULT_RETRIES;
    this.#concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    if (options.fetch) {
      this.#get = fetchHttpGet(options.fetch);
      this.#close = () => undefined;
    } else {
      const transport = nodeHttpGet(this.#concurrency);
      this.#get = transport;
      this.#close = () => transport.close();
    }
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    // An injected fetch rewrites answers; pipelining would go around it.
    this.#pipelineSockets = options.fetch ? 0 : options.pipelineSockets ?? DEFAULT_PIPELINE_SOCKETS;
    this.#cache = options.cacheDir === undefined ? undefined : new SchemaCache(options.cacheDir);
    if (!Number.isSafeInteger(this.#concurrency) || this.#concurrency < 1) throw new ToolgraphError('TG_BAD_REQUEST', `concurrency: expected a positive integer, got ${this.#concurrency}.`);
    if (!Number.isSafeInteger(this.#pipelineSockets) || this.#pipelineSockets < 0) throw new ToolgraphError('TG_BAD_REQUEST', `pipelineSockets: expected a non-negative integer, got ${this.#pipelineSockets}.`);
    if (!Number.isSafeInteger(this.#retries) || this.#retries < 0) throw new ToolgraphError('TG_BAD_REQUEST', `retries: expected a non-negative integer, got ${this.#retries}.`);
  }

  /** GET /schemas/search: ranked hits; an empty query gives []. Each manifest is validated. */
  async search(query: string, limit = 10): Promise<SearchHitView[]> {
    const url = `${this.url}/schemas/search?${new URLSearchParams({ q: query, limit: String(limit) })}`;
    const body = await this.#getJson(url, MAX_SEARCH_BYTES, 'search');
    const results = (body as { results?: unknown }).results;
    if (!Array.isArray(results)) throw new ToolgraphError('TG_FETCH_FAILED', `GET ${url}: expected {results: [...]}, got another shape.`);
    return results.map((raw) => {
      const hit = raw as { manifest?: unknown; score?: unknown; description?: unknown };
      return { manifest: assertSchemaManifest(hit.manifest), score: Number(hit.score), description: String(hit.description ?? '') };
    });
  }

  /**
   * The manifest a name stands for: a digest through GET /schemas/{sha}, otherwise the search hit whose
   * alias (case-insensitive) or else operation equals the name. When the catalogue cannot be reached,
   * the manifest this name last resolved to (from the cache) stands in.
   */
  async resolve(name: string): Promise<SchemaManifest> {
    try {
      const manifest = await this.#resolveOnline(name);
      await this.#cache?.writeManifest(this.url, name, manifest).catch(() => undefined);
      return manifest;
    } catch (error) {
      if (this.#cache && isUnreachable(error)) {
        const cached = await this.#cache.readManifest(this.url, name);
        if (cached) return cached;
      }
      throw error;
    }
  }

  /** Resolves, checks and fetches a schema (from the cache when a verified copy is there). */
  async get(name: string, options: GetOptions = {}): Promise<FetchedSchema> {
    const manifest = assertSchemaManifest(await this.resolve(name));
    assertFetchable(manifest);
    options.onManifest?.(manifest);
    const cached = await this.#cache?.readDocument(manifest.schema_sha256);
    if (cached && this.#cache) {
      try {
        return { manifest, document: cached, schema: verifySchemaDocument(manifest, cached), from: 'cache' };
      } catch {
        // A corrupted entry: drop it and fetch the schema again.
        await this.#cache.dropDocument(manifest.schema_sha256);
      }
    }
    // Hash and scan each run of fragments as it completes, while later ones are still on the wire.
    let verifier: SchemaVerifier | undefined;
    const document = await fetchFragments(manifest, {
      onContiguous: (bytes, end) => {
        verifier ??= new SchemaVerifier(manifest, bytes);
        verifier.advance(end);
      },
      get: this.#get,
      retries: this.#retries,
      backoff: this.#backoff,
      concurrency: this.#concurrency,
      pipelineSockets: this.#pipelineSockets,
      onProgress: options.onProgress && ((done) => options.onProgress!(done, manifest.schema_bytes)),
    });
    const schema = (verifier ?? new SchemaVerifier(manifest, document)).finish();
    await this.#cache?.writeDocument(manifest.schema_sha256, document).catch(() => undefined);
    return { manifest, document, schema, from: 'network' };
  }

  /** Closes idle keep-alive connections (they never hold the process open). */
  close(): void {
    this.#close();
  }

  async #resolveOnline(name: string): Promise<SchemaManifest> {
    if (isDigest(name)) {
      const manifest = assertSchemaManifest(await this.#getJson(`${this.url}/schemas/${name}`, MAX_MANIFEST_BYTES, name));
      if (manifest.schema_sha256 !== name) {
        throw new ToolgraphError('TG_DIGEST_MISMATCH', `Asked for schema ${name}; the catalogue answered with the manifest of ${manifest.schema_sha256}.`);
      }
      return manifest;
    }
    const hits = await this.search(name, 100);
    const lower = name.toLowerCase();
    const byAlias = hits.find((h) => h.manifest.alias.toLowerCase() === lower);
    if (byAlias) return byAlias.manifest;
    const byOperation = hits.filter((h) => h.manifest.operation === name);
    if (byOperation.length === 1) return byOperation[0]!.manifest;
    if (byOperation.length > 1) {
      throw new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No single schema has operation ${name}: ${byOperation.length} do (aliases ${byOperation.map((h) => h.manifest.alias).join(', ')}); ask for an alias or a digest.`);
    }
    throw new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No schema has operation or alias ${JSON.stringify(name)} at ${this.url}.`);
  }

  async #getJson(url: string, maxBytes: number, what: string): Promise<unknown> {
    let body: Buffer;
    try {
      body = await fetchBytes(url, { get: this.#get, retries: this.#retries, backoff: this.#backoff, maxBytes, accept: 'application/json' });
    } catch (error) {
      if (error instanceof HttpStatusError) throw fromErrorBody(url, error, what);
      throw error;
    }
    if (body.length > maxBytes) throw new ToolgraphError('TG_FETCH_FAILED', `GET ${url}: the answer is over ${maxBytes} bytes.`);
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw new ToolgraphError('TG_FETCH_FAILED', `GET ${url}: the answer is not JSON.`);
    }
  }
}

export function createSchemaClient(options: SchemaClientOptions = {}): SchemaClient {
  return new SchemaClient(options);
}

/** Carries a catalogue error body (`{error: {code, message}}`) over to the client side where it is one of ours. */
function fromErrorBody(url: string, error: HttpStatusError, what: string): ToolgraphError {
  if (error.status === 404) return new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No schema ${what} at ${url.replace(/\/schemas\/.*$/, '')}.`);
  try {
    const body = JSON.parse(error.body.toString('utf8')) as { error?: { code?: string; message?: string } };
    if (body.error?.code && body.error.message) {
      return new ToolgraphError('TG_FETCH_FAILED', `GET ${url} answered HTTP ${error.status}: ${body.error.code}: ${body.error.message}`, { details: { url, status: error.status, code: body.error.code } });
    }
  } catch {
    // not an error body; fall through
  }
  return new ToolgraphError('TG_FETCH_FAILED', `GET ${url} answered HTTP ${error.status}.`, { details: { url, status: error.status } });
}
