import type { ResolvedValues } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import { InMemorySecretsBackend } from './in-memory-secrets-backend.ts';
import type { SecretValue, SecretsBackend } from './secrets-backend.ts';
import { StoreSecretsBackend } from './store-secrets-backend.ts';

/** The settings a secrets backend is built from (a subset of the resolved config). */
export type SecretsSettings = Pick<ResolvedValues,
  'secretsBackend' | 'storeUrl' | 'storeMount' | 'storeAuthMethod' | 'storeAuthMount' | 'storeRole' |
  'storeToken' | 'storePathPrefix' | 'storeRoleId' | 'storeSecretId' | 'storeOrchSaTokenPath'>;

export interface CreateSecretsBackendOptions {
  logger?: Logger;
  fetch?: typeof fetch;
  now?: () => number;
  /** Initial contents of the in-memory backend. */
  seed?: Readonly<Record<string, SecretValue>>;
  /** Added to the in-memory backend's not-found message when it is empty (how to seed it). */
  seedHint?: string;
}

/** Builds the backend SECRETS_BACKEND selects. */
export function createSecretsBackend(settings: SecretsSettings, options: CreateSecretsBackendOptions = {}): SecretsBackend {
  if (settings.secretsBackend === 'inmemory') return new InMemorySecretsBackend(options.seed ?? {}, { seedHint: options.seedHint });
  return new StoreSecretsBackend({
    url: settings.storeUrl,
    mount: settings.storeMount,
    pathPrefix: settings.storePathPrefix,
    authMethod: settings.storeAuthMethod,
    authMount: settings.storeAuthMount,
    role: settings.storeRole,
    token: settings.storeToken,
    roleId: settings.storeRoleId,
    secretId: settings.storeSecretId,
    saTokenPath: settings.storeOrchSaTokenPath,
    logger: options.logger,
    fetch: options.fetch,
    now: options.now,
  });
}
