export type { SecretValue, SecretsContext, SecretsBackend } from './secrets-backend.ts';
export { InMemorySecretsBackend, readSecretsSeedFile } from './in-memory-secrets-backend.ts';
export { StoreSecretsBackend } from './store-secrets-backend.ts';
export type { StoreSecretsBackendOptions } from './store-secrets-backend.ts';
export { createSecretsBackend } from './create-secrets-backend.ts';
export { secretKeySegments, kvDataPath } from './secret-key.ts';
export { StoreTokenCache } from './store-token-cache.ts';
