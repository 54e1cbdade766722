import type { IncomingMessage, ServerResponse } from 'node:http';
import { isToolgraphError, toToolgraphError } from '../../errors/index.ts';
import { sendError, type HttpService } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { BearerAuthenticator } from './bearer-authenticator.ts';
import { bindRequestContext } from './request-context.ts';
import { challengeHeaderFor } from './www-authenticate.ts';

/**
 * The same service, reachable only with a valid bearer token: a request without one is answered
 * 401 with a `Bearer` challenge pointing at the resource metadata; with one, the verified context is
 * bound to the request (`requestContextOf(req)`, `requestPrincipal(req)`) before the service runs.
 * No AsyncLocalStorage scope is entered here (it would put a hook on every promise of the process):
 * code below reads the caller from the request (`requestContextOf(req)`) or is handed it.
 * A token already in the verified-token cache goes through without a promise hop. A
 * TG_UNAUTHENTICATED or TG_INSUFFICIENT_SCOPE the service throws before it answered gets the
 * matching challenge too (403 `insufficient_scope` with the needed scope).
 */
export function requireBearer(service: HttpService, authenticator: BearerAuthenticator, logger?: Logger): HttpService {
  const { resourceMetadataUrl } = authenticator;

  /** A service error that is a challenge is answered with it; any other goes on to the host. */
  function answerChallenge(thrown: unknown, res: ServerResponse): void {
    const challenge = isToolgraphError(thrown) && !res.headersSent ? challengeHeaderFor(thrown, resourceMetadataUrl) : undefined;
    if (challenge === undefined) throw thrown;
    sendError(res, thrown, challenge);
  }

  function run(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
    let result: void | Promise<void>;
    try {
      result = service.handle(req, res);
    } catch (thrown) {
      answerChallenge(thrown, res);
      return;
    }
    return result === undefined ? undefined : result.then(undefined, (thrown: unknown) => answerChallenge(thrown, res));
  }

  async function authenticateThenRun(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      bindRequestContext(req, await authenticator.authenticate(req));
    } catch (thrown) {
      const error = toToolgraphError(thrown);
      if (error.code !== 'TG_UNAUTHENTICATED') throw thrown;
      // The reason word only: never the token, the header or a claim.
      // ("bearer token" would read as a credential to the log scrubber, which redacts the word after "bearer".)
      logger?.info({ httpService: service.name, reason: error.details?.['reason'] }, 'access token refused');
      sendError(res, error, challengeHeaderFor(error, resourceMetadataUrl));
      return;
    }
    await run(req, res);
  }

  return {
    name: service.name,
    prefixes: service.prefixes,
    entryPath: service.entryPath,
    handle(req, res) {
      const cached = authenticator.cachedContext(req);
      if (cached === undefined) return authenticateThenRun(req, res);
      bindRequestContext(req, cached);
      return run(req, res);
    },
    ...(service.close ? { close: () => service.close?.() ?? Promise.resolve() } : {}),
  };
}
