import { hash } from 'node:crypto';

/**
 * Lowercase hex SHA-256. One-shot `crypto.hash` is several times faster than `createHash` on the
 * short inputs most digests here take (NOTES.md), and as fast on large buffers.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
