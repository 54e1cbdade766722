import { TOOL_DEFINITIONS } from '../../generated/tools/definitions.ts';
import { TOOL_INPUT_VALIDATORS } from '../../generated/validators/tools.ts';
import type { HttpGetOutput } from '../../generated/types/tools.ts';
import { describeCredential, type AgentCredentials } from '../auth/index.ts';
import type { AgentPattern, AgentSettings } from '../config/index.ts';
import { ToolgraphError, describeValue } from '../errors/index.ts';
import type { DownstreamHttp } from './downstream-http.ts';
import { defineAction, defineAgent, type ActionContext, type ToolAgent } from './tool-agent.ts';

const definition = TOOL_DEFINITIONS.http;
const validators = TOOL_INPUT_VALIDATORS.http;

/** Characters of an answer quoted in a tool error. */
const EXCERPT = 300;

type QueryValues = Readonly<Record<string, string | number | boolean>>;

export interface HttpAgentOptions {
  readonly settings: AgentSettings;
  /** The agent's credentials (src/auth's one model), resolved for the caller on every call. */
  readonly credentials: AgentCredentials;
  readonly http: DownstreamHttp;
}

function badPath(path: string, why: string): ToolgraphError {
  return new ToolgraphError('TG_TOOL_ARGUMENTS_INVALID', `/path: expected a path under the API's base URL (starting with /, no .. segment, no ?, # or \\), got ${describeValue(path)}: ${why}.`, {
    details: { violations: [{ pointer: '/path', expected: 'a path under the base URL', got: describeValue(path) }] },
  });
}

/**
 * The URL of `path` under the base URL. The agent's keys go only to its own API: a path cannot name
 * another host (`//evil`), climb out of the base path (`..`, also percent-encoded), or smuggle a
 * query or fragment.
 */
export function urlUnder(base: string, path: string, query: QueryValues | undefined): URL {
  if (!path.startsWith('/') || path.startsWith('//')) throw badPath(path, 'it must start with exactly one /');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern exists to find control characters in a path and refuse them.
  if (/[?#\\]/.test(path) || /[\u0000-\u001f\u007f]/.test(path)) throw badPath(path, 'it has ?, #, \\ or a control character (give query parameters in query)');
  const segments = path.split('/');
  if (segments.some((s) => { const d = s.replace(/%2e/gi, '.'); return d === '.' || d === '..'; })) throw badPath(path, 'it has a . or .. segment');
  const baseUrl = new URL(base);
  const basePath = baseUrl.pathname.replace(/\/+$/, '');
  const url = new URL(`${basePath}${path}`, baseUrl.origin);
  if (url.origin !== baseUrl.origin || !url.pathname.startsWith(`${basePath}/`)) throw badPath(path, 'it leaves the base URL');
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.append(name, String(value));
  return url;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= EXCERPT ? flat : `${flat.slice(0, EXCERPT)}…`;
}

/** What the tool says about how it reaches its API, by pattern (identity passthrough: the definition's own words). */
const PATTERN_DESCRIPTIONS: Readonly<Record<Exclude<AgentPattern, 'identity-passthrough'>, string>> = {
  'full-delegation': 'A REST API called with a token delegated for the caller (RFC 8693 token exchange) for the API\'s audience: every call goes to the agent\'s configured base URL.',
  hybrid: 'A REST API called with OIDC delegation, else the vendor flow\'s cached token, else the caller\'s token when it was issued for the API: every call goes to the agent\'s configured base URL.',
  'three-legged': 'A REST API called with the token the user consented to at its OAuth provider (a call without consent answers with the URL to consent at): every call goes to the agent\'s configured base URL.',
};

/**
 * One agent of the configurable http family: a REST API under a base URL, called with the credential
 * the agent's pattern gives (src/auth's one model): its own API keys (identity passthrough, the
 * default), a delegated token, the vendor flow's token, a user's consented token. A status other
 * than 2xx is a tool error quoting the answer.
 */
export function createHttpAgent(options: HttpAgentOptions): ToolAgent {
  const { settings, credentials, http } = options;
  const base = settings.url as string;
  const api = `The ${settings.name} API`;

  async function send(action: string, method: string, path: string, query: QueryValues | undefined, body: unknown, context: ActionContext): Promise<HttpGetOutput> {
    const url = urlUnder(base, path, query);
    const credential = await credentials.resolve({ context: context.request, operation: `${settings.name}.${action}` });
    context.logger.debug({ agent: settings.name, credential: describeCredential(credential) }, 'downstream call');
    const headers: Record<string, string> = { accept: 'application/json, text/*;q=0.9, */*;q=0.1', ...credential.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await http.send({ method, url, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: context.signal });
    const contentType = response.headers['content-type'];
    const text = response.body.toString('utf8');
    if (response.status < 200 || response.status > 299) {
      throw new ToolgraphError('TG_DOWNSTREAM_FAILED', `${api} answered HTTP ${response.status} to ${method} ${url.pathname}${text === '' ? '' : `: ${excerpt(text)}`}`, {
        details: { agent: settings.name, status: response.status },
      });
    }
    let parsed: unknown = text;
    if (contentType !== undefined && /^application\/([\w.+-]+\+)?json\b/i.test(contentType) && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, ...(contentType === undefined ? {} : { content_type: contentType }), body: parsed };
  }

  return defineAgent(settings.name, definition, [
    defineAction('get', definition.actions.get, validators.get, {
      readOnly: true,
      run: (input, context) => send('get', 'GET', input.path, input.query as QueryValues | undefined, undefined, context),
    }),
    defineAction('request', definition.actions.request, validators.request, {
      readOnly: false,
      run: (input, context) => {
        if (input.method === 'GET' && input.body !== undefined) {
          throw new ToolgraphError('TG_TOOL_ARGUMENTS_INVALID', '/body: a GET request has no body; use the query parameters, or another method.', {
            details: { violations: [{ pointer: '/body', expected: 'no body with GET', got: describeValue(input.body) }] },
          });
        }
        return send('request', input.method, input.path, input.query as QueryValues | undefined, input.body, context);
      },
    }),
  ], describe(settings, base), { asksConsent: asksCallerConsent(settings) });
}

/** A three-legged agent with per-caller consent answers a caller without one with the URL to consent at. */
export function asksCallerConsent(settings: AgentSettings): boolean {
  return settings.pattern === 'three-legged' && (settings.consent ?? 'caller') === 'caller';
}

function describe(settings: AgentSettings, base: string): string {
  const how = settings.pattern === 'identity-passthrough' ? definition.description : PATTERN_DESCRIPTIONS[settings.pattern];
  return settings.description === undefined ? `${how} Base URL ${base}.` : `${settings.description} (${how})`;
}
