import { isToolgraphError, toToolgraphError } from '../errors/index.ts';
import { sendError, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import type { BearerAuthenticator } from './bearer-authenticator.ts';
import { runWithRequestContext, type RequestContext } from './request-context.ts';
import { challengeHeaderFor } from './www-authenticate.ts';

/**
 * The same service, reachable only with a valid bearer token: a request without one is answered
 * 401 with a `Bearer` challenge pointing at the resource metadata; with one, the service runs inside
 * the request context. A TG_UNAUTHENTICATED or TG_INSUFFICIENT_SCOPE the service throws before it
 * answered gets the matching challenge too (403 `insufficient_scope` with the needed scope).
 */
export function requireBearer(service: HttpService, authenticator: BearerAuthenticator, logger?: Logger): HttpService {
  const { resourceMetadataUrl } = authenticator;
  return {
    name: service.name,
    prefixes: service.prefixes,
    entryPath: service.entryPath,
    async handle(req, res) {
      let context: RequestContext;
      try {
        context = await authenticator.authenticate(req);
      } catch (thrown) {
        const error = toToolgraphError(thrown);
        if (error.code !== 'TG_UNAUTHENTICATED') throw thrown;
        // The reason word only: never the token, the header or a claim.
        // ("bearer token" would read as a credential to the log scrubber, which redacts the word after "bearer".)
        logger?.info({ httpService: service.name, reason: error.details?.['reason'] }, 'access token refused');
        sendError(res, error, challengeHeaderFor(error, resourceMetadataUrl));
        return;
      }
      try {
        await runWithRequestContext(context, () => service.handle(req, res));
      } catch (thrown) {
        const challenge = isToolgraphError(thrown) && !res.headersSent ? challengeHeaderFor(thrown, resourceMetadataUrl) : undefined;
        if (challenge === undefined) throw thrown;
        sendError(res, thrown, challenge);
      }
    },
    ...(service.close ? { close: () => service.close?.() ?? Promise.resolve() } : {}),
  };
}
