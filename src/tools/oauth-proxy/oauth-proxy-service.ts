import express, { type NextFunction, type Request, type Response } from 'express';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { ToolgraphError, toToolgraphError } from '../../errors/index.ts';
import { pathOf, sendError, type HttpService } from '../../http/index.ts';
import { CALLBACK_PATH, CONSENT_PATH, OAuthProxyProvider, type OAuthProxyOptions } from './oauth-proxy-provider.ts';
import { readProxyBody } from './proxy-body.ts';

/** Where the proxy's routes live; the protected resource metadata stays with the bearer layer. */
const OAUTH_PROXY_PREFIXES: readonly string[] = ['/authorize', '/token', '/register', '/.well-known/oauth-authorization-server', '/oauth'];

export interface OAuthProxyServiceOptions extends OAuthProxyOptions {
  /** Scopes the authorization server metadata announces. */
  readonly scopesSupported: readonly string[];
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
    app.use(mcpAuthRouter({
      provider,
      issuerUrl,
      scopesSupported: [...options.scopesSupported],
      resourceName: options.resourceName,
      resourceServerUrl: new URL(options.resource),
    }));
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
