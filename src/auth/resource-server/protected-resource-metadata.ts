import { ToolgraphError } from '../../errors/index.ts';
import { pathOf, sendError, sendJson, type HttpService } from '../../http/index.ts';

/** RFC 9728 §3: the well-known path of protected resource metadata. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The document (RFC 9728 §2), with the members this server fills. */
export interface ProtectedResourceMetadata {
  /** The resource identifier: exactly the audience tokens must carry (TOKEN_AUDIENCE). */
  readonly resource: string;
  /** The discovered issuer. */
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly ['header'];
  readonly resource_name: string;
}

export function protectedResourceMetadata(options: { resource: string; issuer: string; scopesSupported: readonly string[] }): ProtectedResourceMetadata {
  return Object.freeze({
    resource: options.resource,
    authorization_servers: Object.freeze([options.issuer]),
    scopes_supported: Object.freeze([...options.scopesSupported]),
    bearer_methods_supported: Object.freeze(['header'] as const),
    resource_name: 'toolgraph',
  });
}

/**
 * Where clients find the document for a server whose public base URL is `publicBaseUrl` (RFC 9728
 * §3.1: the well-known segment goes between the host and the path). `https://h` gives
 * `https://h/.well-known/oauth-protected-resource`; `https://h/tg` gives
 * `https://h/.well-known/oauth-protected-resource/tg`.
 */
export function resourceMetadataUrl(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${PROTECTED_RESOURCE_METADATA_PATH}${path}`;
}

/**
 * Serves the document, without authentication, at the well-known path and at every path under it
 * (MCP clients ask for `/.well-known/oauth-protected-resource/<path of the endpoint>` first). One
 * document answers all of them: every service of the process shares one audience.
 */
export function createResourceMetadataService(document: ProtectedResourceMetadata): HttpService {
  return {
    name: 'metadata',
    prefixes: [PROTECTED_RESOURCE_METADATA_PATH],
    entryPath: PROTECTED_RESOURCE_METADATA_PATH,
    handle(req, res) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendError(res, new ToolgraphError('TG_METHOD_NOT_ALLOWED', `${req.method ?? ''} is not allowed on ${pathOf(req)}; use GET.`), { allow: 'GET, HEAD' });
        return;
      }
      // Public by design; browser-based MCP clients read it from another origin.
      sendJson(res, 200, document, { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
    },
  };
}
