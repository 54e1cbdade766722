import type { ServerResponse } from 'node:http';
import type { DownstreamCredentials } from '../auth/index.ts';
import { isToolgraphError } from '../errors/index.ts';
import { pathOf, type HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';

/** Where the providers of three-legged agents send the browser back: register `{TOOLGRAPH_PUBLIC_URL}` + this. */
export const CONSENT_CALLBACK_PATH = '/agents/oauth/callback';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const body = `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The page shows nothing secret, but the URL it answers carries the code: no referrer, no framing.
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-length': Buffer.byteLength(body),
  }).end(body);
}

/**
 * The callback route of per-caller three-legged consent (service `consent`, open like the OAuth
 * proxy's routes: the browser carries no bearer token). The provider redirects the caller's browser
 * here with `code` and `state`; the credentials model exchanges the code for the caller whose request
 * the state names (on any replica: requests live in the state store) and stores their token set. The
 * browser is told how it went; the caller's next tool call proceeds with the new consent.
 */
export function createConsentCallbackService(credentials: DownstreamCredentials, logger: Logger): HttpService {
  return {
    name: 'consent',
    prefixes: [CONSENT_CALLBACK_PATH],
    entryPath: CONSENT_CALLBACK_PATH,
    async handle(req, res) {
      if (pathOf(req) !== CONSENT_CALLBACK_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
        page(res, 404, 'Not found', `This route only answers a provider's redirect at ${CONSENT_CALLBACK_PATH}.`);
        return;
      }
      const url = new URL(req.url ?? '/', 'http://callback.invalid');
      try {
        const { agent } = await credentials.completeConsent(url);
        page(res, 200, 'Access allowed', `toolgraph: agent ${agent} may now act for you. You can close this tab and call the tool again.`);
      } catch (error) {
        if (!isToolgraphError(error) || error.code === 'TG_INTERNAL') logger.error({ err: error }, 'consent callback failed');
        else logger.info({ code: error.code }, 'consent callback refused');
        page(res, 400, 'Sign-in failed', `toolgraph: ${isToolgraphError(error) && error.code !== 'TG_INTERNAL' ? error.message : 'the sign-in could not be completed; call the tool again for a new link.'}`);
      }
    },
  };
}
