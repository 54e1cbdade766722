import type { AgentSettings } from '../config/index.ts';
import type {
  CredentialSource, DownstreamAgent as LibraryAgent, DownstreamCredentials as DelegationLibrary, DownstreamPattern, StaticCredentials,
} from '../auth/index.ts';
import type { DelegationPattern, DownstreamAgent, DownstreamCredentials, TokenSource } from './downstream-credentials.ts';

const PATTERNS: Readonly<Record<DelegationPattern, DownstreamPattern>> = {
  'full-delegation': 'delegation',
  'identity-passthrough': 'passthrough',
  hybrid: 'hybrid',
};

const SOURCES: Readonly<Record<CredentialSource, TokenSource | 'static'>> = {
  delegation: 'delegated',
  'device-flow': 'device',
  'caller-token': 'caller',
  'three-legged': 'three-legged',
  credentials: 'static',
};

/** An agent's configured credentials in the delegation library's terms (its fallback, or its API keys). */
export function staticCredentialsOf(settings: AgentSettings): StaticCredentials {
  if (settings.token !== undefined) return { kind: 'token', token: settings.token };
  if (settings.username !== undefined && settings.password !== undefined) return { kind: 'basic', username: settings.username, password: settings.password };
  if (settings.publicKey !== undefined && settings.secretKey !== undefined) {
    return settings.apiKeyStyle === 'headers'
      ? { kind: 'api-key', publicKey: settings.publicKey, secretKey: settings.secretKey, placement: 'headers', headerNames: { publicKey: settings.publicKeyHeader, secretKey: settings.secretKeyHeader } }
      : { kind: 'api-key', publicKey: settings.publicKey, secretKey: settings.secretKey, placement: 'basic' };
  }
  return { kind: 'none' };
}

function libraryAgent(agent: DownstreamAgent): LibraryAgent {
  return {
    name: agent.name,
    pattern: PATTERNS[agent.pattern],
    ...(agent.audience === undefined ? {} : { audience: agent.audience }),
    credentials: staticCredentialsOf(agent.settings),
  };
}

/**
 * The credentials port on the delegation library (src/auth: RFC 8693 exchange with its cache and
 * the fallback warning, the identity-passthrough audit log, the hybrid order). Every agent is
 * registered when the tool server is built; a call resolves for the caller of the request context.
 */
export function createDelegatedCredentials(library: DelegationLibrary): DownstreamCredentials {
  const registered = new Map<string, ReturnType<DelegationLibrary['agent']>>();
  const handle = (agent: DownstreamAgent) => {
    let credentials = registered.get(agent.name);
    if (credentials === undefined) {
      credentials = library.agent(libraryAgent(agent));
      registered.set(agent.name, credentials);
    }
    return credentials;
  };
  return {
    prepare: (agent) => void handle(agent),
    async for(agent, request, operation) {
      const credential = await handle(agent).resolve({ context: request ?? null, ...(operation === undefined ? {} : { operation }) });
      return { kind: 'headers', headers: credential.headers, source: SOURCES[credential.source] };
    },
    close: () => library.close(),
  };
}
