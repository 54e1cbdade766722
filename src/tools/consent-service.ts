import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsentRoutes, ConsentStep, DownstreamCredentials } from '../auth/index.ts';
import { isToolgraphError, ToolgraphError } from '../errors/index.ts';
import { pathOf, sendJson, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';

/** Under this path every consent route lives, and the binding cookie is sent to nothing else. */
const CONSENT_ROUTES_PATH = '/agents/oauth';
/** The link a caller is given (`?consent=<id>`). */
const CONSENT_START_PATH = `${CONSENT_ROUTES_PATH}/start`;
/** Where the SSO IdP sends the browser back: register `{TOOLGRAPH_PUBLIC_URL}` + this for OIDC_CLIENT_ID. */
const CONSENT_SIGNED_IN_PATH = `${CONSENT_ROUTES_PATH}/signed-in`;
/** Where the providers of three-legged agents send the browser back: register `{TOOLGRAPH_PUBLIC_URL}` + this. */
const CONSENT_CALLBACK_PATH = `${CONSENT_ROUTES_PATH}/callback`;

/** The consent routes as browsers reach them under `publicBase` (TOOLGRAPH_PUBLIC_URL or the bound origin). */
export function consentRoutesOf(publicBase: string): ConsentRoutes {
  const base = publicBase.replace(/\/+$/, '');
  const url = new URL(base);
  return {
    startUrl: `${base}${CONSENT_START_PATH}`,
    signedInUrl: `${base}${CONSENT_SIGNED_IN_PATH}`,
    callbackUrl: `${base}${CONSENT_CALLBACK_PATH}`,
    cookie: { path: `${url.pathname.replace(/\/+$/, '')}${CONSENT_ROUTES_PATH}`, secure: url.protocol === 'https:' },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Every answer: nothing cached, no referrer (the URLs carry codes and link ids), no framing. */
const PRIVATE_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' } as const;

function page(res: ServerResponse, status: number, title: string, text: string, headers: Record<string, string> = {}): void {
  const body = `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...PRIVATE_HEADERS, ...headers, 'content-length': Buffer.byteLength(body) }).end(body);
}

function redirect(res: ServerResponse, step: ConsentStep): void {
  res.writeHead(302, { location: step.location, ...PRIVATE_HEADERS, ...(step.setCookie === undefined ? {} : { 'set-cookie': step.setCookie }), 'content-length': 0 }).end();
}

/** A client asking for JSON (and not for a page) gets the error body; a browser gets a page. */
function wantsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

type Step = 'start' | 'signed-in' | 'callback';

const STEPS: Readonly<Record<string, Step>> = { [CONSENT_START_PATH]: 'start', [CONSENT_SIGNED_IN_PATH]: 'signed-in', [CONSENT_CALLBACK_PATH]: 'callback' };

/**
 * The routes of per-caller three-legged consent (service `consent`, open like the OAuth proxy's
 * routes: the browser carries no bearer token). The caller's browser opens the link the tool
 * answered (`start`), signs in at the SSO IdP and comes back (`signed-in`), consents at the agent's
 * provider and comes back (`callback`); the credentials model checks at each step that this is the
 * browser that opened the link (its binding cookie) and, at sign-in, that it is the caller's, and
 * stores the token set only then. Refusals are a page (or, to a client asking for JSON, the error
 * body) with a stable code; the log names the step and code, never a URL, code, token or cookie.
 */
export function createConsentService(credentials: DownstreamCredentials, logger: Logger): HttpService {
  const log = logger.child({ component: 'consent' });
  return {
    name: 'consent',
    prefixes: [CONSENT_START_PATH, CONSENT_SIGNED_IN_PATH, CONSENT_CALLBACK_PATH],
    entryPath: CONSENT_CALLBACK_PATH,
    async handle(req, res) {
      const step = STEPS[pathOf(req)];
      if (step === undefined) {
        page(res, 404, 'Not found', `This route only answers the steps of a consent under ${CONSENT_ROUTES_PATH}.`);
        return;
      }
      // Only a browser's GET takes a step: a HEAD (a link checker, a prefetch) must not spend a link.
      if (req.method !== 'GET') {
        page(res, 405, 'Method not allowed', 'Open this link in a browser.', { allow: 'GET' });
        return;
      }
      const url = new URL(req.url ?? '/', 'http://consent.invalid');
      const cookies = req.headers.cookie;
      try {
        if (step === 'start') {
          const next = await credentials.startConsent(url);
          log.info({ agent: next.agent, step }, 'consent link opened: the browser signs in at the identity provider');
          redirect(res, next);
        } else if (step === 'signed-in') {
          const next = await credentials.consentSignedIn(url, cookies);
          log.info({ agent: next.agent, step }, 'the caller signed in: the browser goes on to the agent\'s provider');
          redirect(res, next);
        } else {
          const { agent, clearCookie } = await credentials.completeConsent(url, cookies);
          const text = `toolgraph: agent ${agent} may now act for you. You can close this tab and call the tool again.`;
          if (wantsJson(req)) sendJson(res, 200, { agent, consented: true }, { ...PRIVATE_HEADERS, 'set-cookie': clearCookie });
          else page(res, 200, 'Access allowed', text, { 'set-cookie': clearCookie });
        }
      } catch (thrown) {
        const known = isToolgraphError(thrown) && thrown.code !== 'TG_INTERNAL';
        if (known) log.info({ step, code: thrown.code, agent: thrown.details?.['agent'] ?? null }, 'consent step refused: nothing stored');
        else log.error({ err: thrown, step }, 'consent step failed');
        const error = known ? thrown : new ToolgraphError('TG_INTERNAL', 'The consent could not be completed; call the tool again for a new link.');
        // An HTML page answering 401 would invite a browser's login prompt: a refused redirect is a bad request.
        const status = error.status === 401 ? 400 : error.status;
        if (wantsJson(req)) sendJson(res, status, error.toBody(), { ...PRIVATE_HEADERS });
        else page(res, status, `Consent refused (${error.code})`, `toolgraph: ${error.message} [${error.code}]`);
      }
    },
  };
}
