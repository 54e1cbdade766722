import { createHash, hash } from 'node:crypto';
import { PieceDocument } from './schema-document.ts';

/**
 * Lowercase hex SHA-256. One-shot `crypto.hash` is several times faster than `createHash` on the
 * short inputs most digests here take (NOTES.md), and as fast on large buffers.
 */
export function sha256Hex(data: string | Uint8Array | PieceDocument): string {
  if (!(data instanceof PieceDocument)) return hash('sha256', data, 'hex');
  const digest = createHash('sha256');
  for (const piece of data.pieces()) digest.update(piece);
  return digest.digest('hex');
}
