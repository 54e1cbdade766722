import express, { type NextFunction, type Request, type Response } from 'express';
import { OAuthError, InvalidRequestError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { ToolgraphError, toToolgraphError } from '../../errors/index.ts';
import { pathOf, sendError, type HttpService } from '../../http/index.ts';
import { isMetadataDocumentClientId } from './client-metadata-document.ts';
import { CALLBACK_PATH, CONSENT_PATH, OAuthProxyProvider, type OAuthProxyOptions } from './oauth-proxy-provider.ts';
import { readProxyBody } from './proxy-body.ts';

/** Where the proxy's routes live; the protected resource metadata stays with the bearer layer. */
const OAUTH_PROXY_PREFIXES: readonly string[] = ['/authorize', '/token', '/register', '/.well-known/oauth-authorization-server', '/oauth'];

export interface OAuthProxyServiceOptions extends OAuthProxyOptions {
  /** Scopes the authorization server metadata announces. */
  readonly scopesSupported: readonly string[];
}

/**
 * /authorize for a client ID metadata document: its redirect_uri must be one the document lists,
 * character for character (the SDK lets a loopback redirect URI differ in its port, which suits a
 * registration but not a document anyone may publish). A document refused is answered here as the
 * SDK answers an unknown client. True: the SDK's handler goes on.
 */
async function metadataDocumentRedirectCheck(provider: OAuthProxyProvider, req: Request, res: Response): Promise<boolean> {
  const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
  const clientId = params?.['client_id'];
  const redirectUri = params?.['redirect_uri'];
  if (typeof clientId !== 'string' || !isMetadataDocumentClientId(clientId)) return true;
  let refusal: OAuthError | undefined;
  try {
    const client = await provider.clientsStore.getClient(clientId);
    if (client !== undefined && typeof redirectUri === 'string' && !client.redirect_uris.includes(redirectUri)) {
      refusal = new InvalidRequestError(`redirect_uri ${redirectUri.slice(0, 300)} is not one of the redirect_uris of the client ID metadata document ${clientId.slice(0, 300)} (they are compared exactly).`);
    }
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    refusal = error;
  }
  if (refusal === undefined) return true;
  res.status(400).set('cache-control', 'no-store').json(refusal.toResponseObject());
  return false;
}

/**
 * The OAuth proxy as an HttpService (name `oauth`): the SDK's `mcpAuthRouter` (authorization server
 * metadata, /authorize, /token, /register, each with the SDK's rate limits) on express 5, plus the
 * consent form and the IdP's callback. Open by design: these are how a client gets a token. Bodies
 * are read before express sees the request, through the bounded reader (readProxyBody).
 */
export function createOAuthProxyService(options: OAuthProxyServiceOptions): { service: HttpService; provider: OAuthProxyProvider } {
  const provider = new OAuthProxyProvider(options);
  let issuerUrl: URL;
  const app = express();
  app.disable('x-powered-by');
  try {
    issuerUrl = new URL(options.publicBase);
    const routerOptions = {
      provider,
      issuerUrl,
      scopesSupported: [...options.scopesSupported],
      resourceName: options.resourceName,
      resourceServerUrl: new URL(options.resource),
    };
    // The SDK's metadata, plus client ID metadata documents (MCP 2026-07-28); registration stays for older clients.
    app.use('/.well-known/oauth-authorization-server', metadataHandler({ ...createOAuthMetadata(routerOptions), client_id_metadata_document_supported: true }));
    app.all('/authorize', (req, res, next) => {
      metadataDocumentRedirectCheck(provider, req, res).then((pass) => (pass ? next() : undefined), next);
    });
    app.use(mcpAuthRouter(routerOptions));
  } catch (error) {
    // The SDK refuses an issuer that is not https (loopback apart).
    throw new ToolgraphError('TG_CONFIG_INVALID', `The OAuth proxy cannot serve at ${options.publicBase}: ${(error as Error).message} (an authorization server must be reached over https; set TOOLGRAPH_PUBLIC_URL to its https address).`, {
      details: { setting: 'publicUrl' }, cause: error,
    });
  }
  const run = (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };
  // The form is in req.body already (readProxyBody); the SDK's routes find theirs there the same way.
  app.post(CONSENT_PATH, run((req, res) => provider.consent(req, res)));
  app.get(CALLBACK_PATH, run((req, res) => provider.callback(req, res)));
  app.use((req: Request, res: Response) => {
    const error = new ToolgraphError('TG_NOT_FOUND', `No route for ${req.method} ${req.path.slice(0, 200)}.`);
    res.status(error.status).json(error.toBody());
  });
  app.use((thrown: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const error = toToolgraphError(thrown);
    if (error.code === 'TG_INTERNAL') options.logger.error({ err: thrown }, 'OAuth proxy request failed');
    if (!res.headersSent) res.status(error.status).json(error.toBody());
  });
  return {
    provider,
    service: {
      name: 'oauth',
      prefixes: OAUTH_PROXY_PREFIXES,
      entryPath: '/.well-known/oauth-authorization-server',
      handle: async (req, res) => {
        let body: unknown;
        try {
          body = await readProxyBody(req, pathOf(req));
        } catch (error) {
          sendError(res, error);
          return;
        }
        if (body !== undefined) (req as { body?: unknown }).body = body;
        app(req, res);
      },
    },
  };
}
