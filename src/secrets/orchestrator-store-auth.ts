import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ToolgraphError } from '../errors/index.ts';
import { parseLoginAnswer, type StoreAuthMethod } from './store-auth-method.ts';

export interface OrchestratorStoreAuthOptions {
  /** STORE_ROLE. */
  role: string;
  /** STORE_ORCH_SA_TOKEN_PATH. Read at every login: the orchestrator rotates the file. */
  saTokenPath: string;
}

/** Kubernetes login: `POST /v1/auth/kubernetes/login {role, jwt}` with the service-account token. */
export function orchestratorStoreAuth(options: OrchestratorStoreAuthOptions): StoreAuthMethod {
  return {
    name: 'orchestrator',
    missing: () => (existsSync(options.saTokenPath) ? undefined : `no service-account token file at ${options.saTokenPath}`),
    cacheKey: () => `orchestrator\u0000${options.role}`,
    notAfter: () => Infinity,
    who: () => 'service account',
    async login(_context, http) {
      let jwt: string;
      try {
        jwt = (await readFile(options.saTokenPath, 'utf8')).trim();
      } catch (error) {
        throw new ToolgraphError('TG_SECRETS_STORE_AUTH_FAILED', `orchestrator login: expected a readable service-account token file at ${options.saTokenPath}, got ${(error as NodeJS.ErrnoException).code ?? 'an error'}`, { details: { method: 'orchestrator' } });
      }
      if (jwt === '') {
        throw new ToolgraphError('TG_SECRETS_STORE_AUTH_FAILED', `orchestrator login: expected a service-account token in ${options.saTokenPath}, got an empty file`, { details: { method: 'orchestrator' } });
      }
      const answer = await http.request('POST', 'auth/kubernetes/login', { body: { role: options.role, jwt } });
      return parseLoginAnswer('orchestrator', 'auth/kubernetes', answer);
    },
  };
}
