import { readFileSync } from 'node:fs';
import { ToolgraphError } from '../errors/index.ts';
import { secretKeySegments } from './secret-key.ts';
import type { SecretValue, SecretsBackend, SecretsContext } from './secrets-backend.ts';

export interface InMemorySecretsOptions {
  /** Said in the not-found message, so a user of an empty backend learns how to seed it. */
  seedHint?: string;
}

/** Secrets held in process memory: tests and local development. Starts with what it is given. */
export class InMemorySecretsBackend implements SecretsBackend {
  readonly kind = 'inmemory';
  readonly #values: Map<string, SecretValue>;
  readonly #seedHint: string | undefined;

  constructor(seed: ReadonlyMap<string, SecretValue> | Readonly<Record<string, SecretValue>> = {}, options: InMemorySecretsOptions = {}) {
    const entries = seed instanceof Map ? [...seed.entries()] : Object.entries(seed);
    for (const [key] of entries) secretKeySegments(key);
    this.#values = new Map(entries.map(([key, value]) => [key, copy(value)]));
    this.#seedHint = options.seedHint;
  }

  get size(): number {
    return this.#values.size;
  }

  set(key: string, value: SecretValue): void {
    secretKeySegments(key);
    this.#values.set(key, copy(value));
  }

  async get(key: string, _context?: SecretsContext): Promise<SecretValue> {
    secretKeySegments(key);
    const value = this.#values.get(key);
    if (value !== undefined) return copy(value);
    const where = this.#values.size === 0 && this.#seedHint ? `the in-memory backend is empty (${this.#seedHint})` : `the in-memory backend holds ${this.#values.size} other key(s)`;
    throw new ToolgraphError('TG_SECRET_NOT_FOUND', `no secret under key ${JSON.stringify(key)}: ${where}`, { details: { key } });
  }
}

// Callers get their own copy: a caller mutating a returned object must not change the stored secret.
function copy(value: SecretValue): SecretValue {
  return typeof value === 'string' ? value : structuredClone(value);
}

/**
 * Reads a seed file for the in-memory backend: a JSON object whose keys are secret keys and whose
 * values are strings or objects (the shape a KV v2 secret has).
 */
export function readSecretsSeedFile(path: string): Record<string, SecretValue> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `secrets seed file ${path}: expected a readable JSON object, got ${(error as Error).message}`, { details: { file: path } });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `secrets seed file ${path}: expected a JSON object of key → string or object, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}`, { details: { file: path } });
  }
  for (const [key, value] of Object.entries(parsed)) {
    const ok = typeof value === 'string' || (value !== null && typeof value === 'object' && !Array.isArray(value));
    if (!ok) {
      // The value itself is never echoed: only its type.
      throw new ToolgraphError('TG_CONFIG_INVALID', `secrets seed file ${path}: key ${JSON.stringify(key)}: expected a string or an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`, { details: { file: path, key } });
    }
  }
  return parsed as Record<string, SecretValue>;
}
