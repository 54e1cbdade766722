import { FRAGMENT_BYTES } from './limits.ts';

/** `ceil(schemaBytes / 4096)`: the number of fragments a schema of this length is served in. */
export function fragmentCount(schemaBytes: number): number {
  return Math.ceil(schemaBytes / FRAGMENT_BYTES);
}

/** The expected length of fragment `index` of a `schemaBytes`-long schema (0 past the end). */
export function fragmentLength(schemaBytes: number, index: number): number {
  const start = index * FRAGMENT_BYTES;
  if (index < 0 || start >= schemaBytes) return 0;
  return Math.min(FRAGMENT_BYTES, schemaBytes - start);
}

/** Fragment `index` of `document` (a view where the bytes lie in one piece), or undefined past the end. */
export function fragmentOf(document: { readonly length: number; subarray(start: number, end: number): Uint8Array }, index: number): Uint8Array | undefined {
  if (!Number.isSafeInteger(index) || index < 0) return undefined;
  const start = index * FRAGMENT_BYTES;
  if (start >= document.length) return undefined;
  return document.subarray(start, Math.min(start + FRAGMENT_BYTES, document.length));
}
