/** Limits of Area A, as the spec and the SchemaManifest JSON Schema give them. */

/** Every fragment but the last is exactly this long. */
export const FRAGMENT_BYTES = 4096;
/** `schema_bytes` maximum: 16 MiB, which is 4096 fragments (under the 4100 cap). */
export const MAX_SCHEMA_BYTES = 16 * 1024 * 1024;
export const OPERATION_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
export const OPERATION_NAME_MAX_LENGTH = 512;
export const ALIAS_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;
export const ALIAS_MAX_LENGTH = 128;
const DIGEST_PATTERN = /^[0-9a-f]{64}$/;

export function isDigest(value: string): boolean {
  return DIGEST_PATTERN.test(value);
}
