import { readFile } from 'node:fs/promises';
import { createLocalJWKSet, createRemoteJWKSet, type CryptoKey, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import { ToolgraphError, describeValue } from '../../errors/index.ts';

/** Finds the public key of the signer named in a JWS header (jose's JWKS resolver). */
export type SignerKeys = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/** Members that only a private or symmetric JWK has: a trusted-signer set must hold public keys only. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'priv'];

function invalid(where: string, message: string): ToolgraphError {
  return new ToolgraphError('TG_CONFIG_INVALID', `SERVICE_GRAPHQL_SIGNER_JWKS (${where}): ${message}`);
}

/** Checks a JWKS document: `{keys: [...]}` of public asymmetric keys. */
export function checkSignerJwks(value: unknown, where: string): JSONWebKeySet {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { keys?: unknown }).keys)) {
    throw invalid(where, `expected a JWKS object {"keys": [...]}, got ${describeValue(value)}.`);
  }
  const keys = (value as { keys: unknown[] }).keys;
  if (keys.length === 0) throw invalid(where, 'the key set is empty, so no envelope could ever verify.');
  keys.forEach((key, i) => {
    if (typeof key !== 'object' || key === null) throw invalid(where, `keys[${i}]: expected a JWK object, got ${describeValue(key)}.`);
    const jwk = key as Record<string, unknown>;
    if (jwk['kty'] === 'oct') throw invalid(where, `keys[${i}] is a symmetric key; trusted signers are public keys (EdDSA, ES*, RS*, PS*).`);
    const leaked = PRIVATE_MEMBERS.filter((m) => m in jwk);
    if (leaked.length > 0) throw invalid(where, `keys[${i}] holds private key material (${leaked.join(', ')}); give the carrier the public keys only.`);
  });
  return value as JSONWebKeySet;
}

/**
 * The trusted signer keys: a JWKS file, read once at start-up (restart to rotate), or a JWKS URL,
 * fetched on first use, cached for ten minutes and refetched when an unknown `kid` arrives (at most
 * once every 30 seconds).
 */
export async function loadSignerKeys(location: string): Promise<SignerKeys> {
  if (location.startsWith('/')) {
    let text: string;
    try {
      text = await readFile(location, 'utf8');
    } catch (error) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `SERVICE_GRAPHQL_SIGNER_JWKS (${location}): cannot be read: ${(error as Error).message}`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw invalid(location, `not JSON: ${(error as Error).message}`);
    }
    return createLocalJWKSet(checkSignerJwks(parsed, location)) as SignerKeys;
  }
  return createRemoteJWKSet(new URL(location), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 600_000 }) as SignerKeys;
}
