import type { IncomingMessage, ServerResponse } from 'node:http';
import { PARAMETERS } from '../../generated/openapi/parameters.ts';
import {
  validateGetSchemaFragmentPathParameters,
  validateGetSchemaManifestPathParameters,
  validateSearchSchemasQueryParameters,
} from '../../generated/validators/openapi.ts';
import { ToolgraphError, describeValue } from '../errors/index.ts';
import { pathOf, readQueryParameters, sendError, sendJson, type HttpService, type ResponseBody } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import type { Principal } from '../principal/index.ts';
import type { Catalogue } from './catalogue.ts';
import { catalogueViewOf, type CatalogueView, type CatalogueVisibility } from './catalogue-view.ts';

export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** When entries are filtered per caller, shared caches must not hand one caller's answer to another. */
const PRIVATE_IMMUTABLE_CACHE_CONTROL = 'private, max-age=31536000, immutable';

export interface CatalogueServiceOptions {
  catalogue: Catalogue;
  logger: Logger;
  /**
   * Leaves out entries the caller may not see (a graph's operations are listed only to principals
   * that may read that graph): hidden entries are absent from search, and their manifests and
   * fragments answer as unknown digests. The same decision the `schemas` tool asks (CatalogueView).
   * Absent: every entry is public.
   */
  access?: {
    readonly visibility: CatalogueVisibility;
    /** The request's verified caller (throws TG_UNAUTHENTICATED without one). */
    readonly principalOf: (req: IncomingMessage) => Promise<Principal>;
  };
}

/**
 * The catalogue's HTTP routes (operationIds searchSchemas, getSchemaManifest, getSchemaFragment of
 * specs/tool-server.openapi.yaml). GET and HEAD only. Manifests and fragments are content-addressed:
 * strong ETags, immutable caching, 304 on a matching If-None-Match.
 */
export function createCatalogueService(options: CatalogueServiceOptions): HttpService {
  const { catalogue, access } = options;
  return {
    name: 'catalogue',
    prefixes: ['/schemas'],
    entryPath: '/schemas/search',
    async handle(req, res) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathOf(req)}; use GET.`), { allow: 'GET, HEAD' });
        return;
      }
      const path = pathOf(req);
      const parts = path.split('/').slice(2); // ['', 'schemas', ...]
      const view = catalogueViewOf(catalogue, access?.visibility, access === undefined ? undefined : await access.principalOf(req));
      if (parts.length === 1 && parts[0] === 'search') return search(view, req, res);
      if (parts.length === 1 && parts[0] !== '') return manifest(view, req, res, parts[0]!);
      if (parts.length === 3 && parts[1] === 'fragments') return fragment(view, req, res, parts[0]!, parts[2]!);
      sendError(res, new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method} ${path}.`));
    },
  };
}

/** With per-caller views, even an unfiltered (admin) answer is private: shared caches must not reuse it. */
function cacheControl(view: CatalogueView): string {
  return view.perCaller ? PRIVATE_IMMUTABLE_CACHE_CONTROL : IMMUTABLE_CACHE_CONTROL;
}

/** `q` and `limit` as the document bounds them (generated validator; `limit` defaults to the document's default). */
function search(view: CatalogueView, req: IncomingMessage, res: ServerResponse): void {
  const query = PARAMETERS.searchSchemas.query;
  const { q = '', limit = query.limit.default } = readQueryParameters(req.url, query, validateSearchSchemasQueryParameters);
  const body: ResponseBody<'searchSchemas', 200> = { results: view.search(q, limit) };
  sendJson(res, 200, body, { 'cache-control': 'no-cache' });
}

function malformedDigest(raw: string): ToolgraphError {
  return new ToolgraphError('TG_DIGEST_MALFORMED', `schema_sha256: expected 64 lowercase hex characters, got ${describeValue(raw)}.`);
}

function manifest(view: CatalogueView, req: IncomingMessage, res: ServerResponse, digest: string): void {
  if (!validateGetSchemaManifestPathParameters({ schema_sha256: digest })) throw malformedDigest(digest);
  const found = view.manifestByDigest(digest);
  if (!found) throw new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No manifest has schema_sha256 ${digest}.`);
  const etag = `"${digest}"`;
  if (notModified(req, res, etag, view)) return;
  const body: ResponseBody<'getSchemaManifest', 200> = found;
  sendJson(res, 200, body, { etag, 'cache-control': cacheControl(view) });
}

function fragment(view: CatalogueView, req: IncomingMessage, res: ServerResponse, digest: string, rawIndex: string): void {
  // The document's patterns: the digest is 64 lowercase hex characters, the index decimal without leading zeros, at most 4 digits.
  if (!validateGetSchemaFragmentPathParameters({ schema_sha256: digest, index: rawIndex })) {
    if (validateGetSchemaFragmentPathParameters.errors?.some((e) => e.instancePath === '/schema_sha256')) throw malformedDigest(digest);
    throw new ToolgraphError('TG_FRAGMENT_INDEX_INVALID', `index: expected a non-negative decimal integer without leading zeros (at most 4 digits), got ${describeValue(rawIndex)}.`);
  }
  const entry = view.entryByDigest(digest);
  if (!entry) throw new ToolgraphError('TG_SCHEMA_NOT_FOUND', `No manifest has schema_sha256 ${digest}.`);
  const index = Number(rawIndex);
  const bytes = view.fragment(digest, index);
  if (!bytes) {
    throw new ToolgraphError('TG_FRAGMENT_NOT_FOUND', `Fragment ${index} is past the end: schema ${digest} has ${entry.manifest.fragment_count} fragment${entry.manifest.fragment_count === 1 ? '' : 's'} (0 to ${entry.manifest.fragment_count - 1}).`);
  }
  const etag = `"${digest}-${index}"`;
  if (notModified(req, res, etag, view)) return;
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': bytes.length,
    etag,
    'cache-control': cacheControl(view),
  });
  res.end(bytes);
}

/** Answers 304 when If-None-Match names this ETag (or `*`); weak comparison, as RFC 9110 asks for If-None-Match. */
function notModified(req: IncomingMessage, res: ServerResponse, etag: string, view: CatalogueView): boolean {
  const header = req.headers['if-none-match'];
  if (header === undefined) return false;
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (!tags.includes(etag) && !tags.includes('*')) return false;
  res.writeHead(304, { etag, 'cache-control': cacheControl(view) });
  res.end();
  return true;
}

