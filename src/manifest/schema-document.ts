/**
 * The bytes of a canonical schema document. Most are one Buffer; a graph's operations share most of
 * their bytes (the `$defs` of the types they reach), so their documents are kept as pieces of shared
 * buffers (PieceDocument) instead of one copy each.
 */
export type SchemaDocument = Buffer | PieceDocument;

/** A document made of pieces, in order; the pieces may be views into buffers other documents share. */
export class PieceDocument {
  readonly #pieces: readonly Uint8Array[];
  /** Start offset of each piece, and the total length last. */
  readonly #starts: Float64Array;

  constructor(pieces: readonly Uint8Array[]) {
    const kept = pieces.filter((p) => p.length > 0);
    this.#pieces = kept;
    this.#starts = new Float64Array(kept.length + 1);
    let at = 0;
    kept.forEach((piece, i) => {
      this.#starts[i] = at;
      at += piece.length;
    });
    this.#starts[kept.length] = at;
  }

  get length(): number {
    return this.#starts[this.#pieces.length]!;
  }

  /** The pieces, in order (to hash or write without joining them). */
  pieces(): readonly Uint8Array[] {
    return this.#pieces;
  }

  /** Bytes [start, end): a view when they lie in one piece, else a copy. */
  subarray(start: number, end: number): Uint8Array {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    let i = this.#pieceAt(from);
    if (i < this.#pieces.length && to <= this.#starts[i + 1]!) {
      const offset = this.#starts[i]!;
      return this.#pieces[i]!.subarray(from - offset, to - offset);
    }
    const out = Buffer.allocUnsafe(to - from);
    let written = 0;
    for (; i < this.#pieces.length && this.#starts[i]! < to; i++) {
      const offset = this.#starts[i]!;
      const piece = this.#pieces[i]!;
      const a = Math.max(from, offset) - offset;
      const b = Math.min(to, offset + piece.length) - offset;
      out.set(piece.subarray(a, b), written);
      written += b - a;
    }
    return out;
  }

  toString(encoding: 'utf8' = 'utf8'): string {
    return Buffer.concat(this.#pieces).toString(encoding);
  }

  /** The piece holding byte `offset` (binary search over the starts). */
  #pieceAt(offset: number): number {
    let lo = 0;
    let hi = this.#pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
