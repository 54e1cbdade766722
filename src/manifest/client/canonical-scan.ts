import { isUtf8 } from 'node:buffer';
import { createHash, type Hash } from 'node:crypto';

/** One member of the root object: the key (decoded) and the byte range of its value. */
export interface CanonicalMember {
  readonly key: string;
  readonly start: number;
  readonly end: number;
  /** SHA-256 (hex) of the value's bytes, which in canonical bytes are its JCS. */
  readonly sha256: string;
}

/** Why bytes are not RFC 8785 (JCS) JSON, and where. */
export class NotCanonicalError extends Error {
  readonly offset: number;
  constructor(reason: string, offset: number) {
    super(`${reason} at byte ${offset}`);
    this.offset = offset;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];
// Not fatal: invalid UTF-8 is refused by finish() in any case; here it only must not throw.
const decoder = new TextDecoder('utf-8');

/**
 * A validating parse of `bytes` that accepts exactly the RFC 8785 (JCS) serialisations: valid UTF-8,
 * no whitespace, strings escaped as JSON.stringify escapes them (`\"`, `\\`, `\b \f \n \r \t`,
 * `\u00xx` in lowercase for other controls, nothing else), numbers in ECMAScript shortest form, and
 * object keys strictly increasing in UTF-16 code-unit order (so no duplicates). Such bytes equal
 * JCS(JSON.parse(bytes)), and because JCS is applied recursively, every value's byte range is the JCS
 * of that value, so the SHA-256 of each root member's range is the digest of that part. Builds no
 * values (a fraction of JSON.parse's cost); returns the members of the root object (undefined for
 * another root). Iterative, so deep nesting cannot overflow the call stack.
 */
export function scanCanonicalJson(bytes: Uint8Array): CanonicalMember[] | undefined {
  const scanner = new CanonicalScanner(bytes);
  scanner.advance(bytes.length);
  return scanner.finish();
}

const VALUE = 0;
const AFTER_VALUE = 1;
const KEY = 2;
const FIRST_KEY = 3;

/**
 * The same scan, resumable: `advance(n)` scans as far as the first n bytes allow (say, as fragments
 * arrive in order) and stops before any token it cannot finish yet, mutating nothing for it, so the
 * next call takes up where this one stopped. The first problem is kept and thrown by `finish()`.
 * Root member digests are hashed as the scan passes over them.
 */
export class CanonicalScanner {
  readonly #bytes: Uint8Array;
  /** The bytes available so far, as a Buffer view (indexOf must not see past them). */
  #view: Buffer;
  #end = 0;
  #controlChecked = 0;
  #pos = 0;
  #state = VALUE;
  #problem: NotCanonicalError | undefined;
  /** The next backslash at or after the last search, or #end when there was none below it. */
  #nextBackslash = -1;
  #lastStringPlain = true;
  // Per open container: 1 object, 0 array; for objects, the previous key's range and plainness
  // (plain: ASCII without escapes, so byte order is code-unit order).
  readonly #kinds: number[] = [];
  readonly #keyStarts: number[] = [];
  readonly #keyEnds: number[] = [];
  readonly #keyPlain: boolean[] = [];
  #rootMembers: CanonicalMember[] | undefined;
  #memberKey = '';
  #memberStart = 0;
  #memberHash: Hash | undefined;
  #memberFed = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = Buffer.alloc(0);
  }

  /** Scans on, given that bytes [0, end) are final. */
  advance(end: number): void {
    if (this.#problem || end <= this.#end) return;
    if (this.#nextBackslash === this.#end) this.#nextBackslash = -1;
    this.#end = end;
    this.#view = Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, end);
    try {
      // JCS escapes every control character in strings and writes no whitespace, so no byte below
      // 0x20 may appear anywhere; checking that up front keeps the string loops to two compares.
      const control = firstControlByte(this.#view, this.#controlChecked);
      if (control >= 0) fail('a control character or whitespace', control);
      this.#controlChecked = end;
      this.#run();
      if (this.#memberHash) this.#feedMember(this.#pos);
    } catch (error) {
      if (!(error instanceof NotCanonicalError)) throw error;
      this.#problem = error;
    }
  }

  /** The root members once every byte has been scanned; throws the first problem found. */
  finish(): CanonicalMember[] | undefined {
    this.advance(this.#bytes.length);
    if (this.#problem) throw this.#problem;
    if (!isUtf8(this.#bytes)) throw new NotCanonicalError('not valid UTF-8', 0);
    if (this.#kinds.length !== 0 || this.#state !== AFTER_VALUE || this.#pos !== this.#bytes.length) throw new NotCanonicalError('unexpected end', this.#pos);
    return this.#rootMembers;
  }

  #run(): void {
    const bytes = this.#view;
    const end = this.#end;
    const final = end === this.#bytes.length;
    const kinds = this.#kinds;
    for (;;) {
      const pos = this.#pos;
      if (pos >= end) {
        if (final && (kinds.length > 0 || this.#state !== AFTER_VALUE)) fail('unexpected end', pos);
        return;
      }
      if (this.#state === AFTER_VALUE) {
        const depth = kinds.length;
        if (depth === 0) fail('bytes after the end of the document', pos);
        const kind = kinds[depth - 1]!;
        const next = bytes[pos];
        if (kind === 1 && depth === 1) this.#closeMember(pos);
        if (next === COMMA) {
          this.#pos = pos + 1;
          this.#state = kind === 1 ? KEY : VALUE;
        } else if (next === (kind === 1 ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          this.#pos = pos + 1;
          kinds.pop();
        } else {
          fail('expected a comma or the end of the container', pos);
        }
      } else if (this.#state === VALUE) {
        const c = bytes[pos]!;
        if (c === QUOTE) {
          const after = this.#string(pos, false);
          if (after < 0) return;
          this.#pos = after;
          this.#state = AFTER_VALUE;
        } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
          if (pos + 1 >= end) {
            if (final) fail('unexpected end', pos);
            return;
          }
          if (bytes[pos + 1] === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
            this.#pos = pos + 2;
            this.#state = AFTER_VALUE;
          } else {
            kinds.push(c === OPEN_OBJECT ? 1 : 0);
            if (kinds.length === 1 && c === OPEN_OBJECT) this.#rootMembers = [];
            this.#pos = pos + 1;
            this.#state = c === OPEN_OBJECT ? FIRST_KEY : VALUE;
          }
        } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          const word = c === 0x74 ? TRUE : c === 0x66 ? FALSE : NULL;
          if (pos + word.length > end && !final) return;
          for (let k = 0; k < word.length; k++) if (bytes[pos + k] !== word[k]) fail('not JSON', pos);
          this.#pos = pos + word.length;
          this.#state = AFTER_VALUE;
        } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          let q = pos;
          while (q < end) {
            const d = bytes[q]!;
            if ((d >= 0x30 && d <= 0x39) || d === 0x2d || d === 0x2b || d === 0x2e || d === 0x65 || d === 0x45) q++;
            else break;
          }
          if (q === end && !final) return;
          // ECMAScript never writes a number longer than 25 characters (-1.2345678901234567e-308).
          if (q - pos > 32) fail('a number not in ECMAScript shortest form', pos);
          const text = String.fromCharCode(...bytes.subarray(pos, q));
          // JCS writes numbers as ECMAScript's Number::toString does; anything else (-0, 1.0, 1E2, 01) is not canonical.
          if (String(Number(text)) !== text) fail(`a number not in ECMAScript shortest form (${text})`, pos);
          this.#pos = q;
          this.#state = AFTER_VALUE;
        } else {
          fail('not canonical JSON (whitespace or an unexpected character)', pos);
        }
      } else {
        // A key and its colon, taken together so a suspension never splits them.
        if (bytes[pos] !== QUOTE) fail('expected a key', pos);
        const after = this.#string(pos, true);
        if (after < 0) return;
        if (after >= end) {
          if (final) fail('unexpected end', after);
          return;
        }
        const depth = kinds.length - 1;
        if (this.#state === KEY && this.#compareKeys(this.#keyStarts[depth]!, this.#keyEnds[depth]!, this.#keyPlain[depth]!, pos, after, this.#lastStringPlain) >= 0) {
          fail('keys not in strictly increasing code-unit order', pos);
        }
        if (bytes[after] !== COLON) fail('expected a colon right after a key', after);
        this.#keyStarts[depth] = pos;
        this.#keyEnds[depth] = after;
        this.#keyPlain[depth] = this.#lastStringPlain;
        if (depth === 0) {
          this.#memberKey = JSON.parse(decoder.decode(bytes.subarray(pos, after))) as string;
          this.#memberStart = after + 1;
          this.#memberFed = after + 1;
          this.#memberHash = createHash('sha256');
        }
        this.#pos = after + 1;
        this.#state = VALUE;
      }
    }
  }

  #feedMember(to: number): void {
    if (to > this.#memberFed) this.#memberHash!.update(this.#bytes.subarray(this.#memberFed, to));
    this.#memberFed = to;
  }

  #closeMember(end: number): void {
    this.#feedMember(end);
    this.#rootMembers!.push({ key: this.#memberKey, start: this.#memberStart, end, sha256: this.#memberHash!.digest('hex') });
    this.#memberHash = undefined;
  }

  /**
   * Scans the string opening at `start`; returns the position after its closing quote, or -1 when it
   * runs past the bytes available (before the end). Value strings (most of a schema's bytes) jump from
   * quote to quote with the native indexOf; keys are short and walked to learn whether they are plain.
   */
  #string(start: number, key: boolean): number {
    const bytes = this.#view;
    const end = this.#end;
    const final = end === this.#bytes.length;
    if (!key) {
      let i = start + 1;
      for (;;) {
        const quote = bytes.indexOf(QUOTE, i);
        if (quote < 0) {
          if (final) fail('unterminated string', start);
          return -1;
        }
        if (this.#nextBackslash < i) this.#nextBackslash = nextIndex(bytes, BACKSLASH, i);
        const backslash = this.#nextBackslash;
        if (backslash > quote) return quote + 1;
        if (!final && !this.#escapeAvailable(backslash)) return -1;
        i = this.#escape(backslash);
      }
    }
    let plain = true;
    let i = start + 1;
    for (;;) {
      if (i >= end) {
        if (final) fail('unterminated string', start);
        return -1;
      }
      const c = bytes[i]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        plain = false;
        if (!final && !this.#escapeAvailable(i)) return -1;
        i = this.#escape(i);
      } else {
        if (c >= 0x80) plain = false;
        i++;
      }
    }
    this.#lastStringPlain = plain;
    return i + 1;
  }

  #escapeAvailable(i: number): boolean {
    return i + 1 < this.#end && (this.#view[i + 1] !== 0x75 || i + 5 < this.#end);
  }

  /** Checks the escape at `i` is one JCS writes; returns the position after it. */
  #escape(i: number): number {
    const bytes = this.#view;
    const e = bytes[i + 1];
    if (e === QUOTE || e === BACKSLASH || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) return i + 2;
    if (e !== 0x75) fail('an escape JCS does not write', i);
    // Only controls without a short form are written \u00xx, in lowercase hex.
    if (bytes[i + 2] !== 0x30 || bytes[i + 3] !== 0x30) fail('a \\u escape JCS does not write', i);
    const hi = bytes[i + 4];
    const lo = bytes[i + 5] ?? 0;
    const loValue = lo >= 0x30 && lo <= 0x39 ? lo - 0x30 : lo >= 0x61 && lo <= 0x66 ? lo - 0x57 : -1;
    if ((hi !== 0x30 && hi !== 0x31) || loValue < 0) fail('a \\u escape JCS does not write', i);
    const code = (hi === 0x31 ? 16 : 0) + loValue;
    if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) fail('a \\u escape where JCS writes a short escape', i);
    return i + 6;
  }

  /** Code-unit order of two keys (ranges include the quotes): negative, 0 or positive. */
  #compareKeys(aStart: number, aEnd: number, aPlain: boolean, bStart: number, bEnd: number, bPlain: boolean): number {
    const bytes = this.#view;
    if (aPlain && bPlain) {
      const aLen = aEnd - aStart - 2;
      const bLen = bEnd - bStart - 2;
      const n = Math.min(aLen, bLen);
      for (let k = 1; k <= n; k++) {
        const d = bytes[aStart + k]! - bytes[bStart + k]!;
        if (d !== 0) return d;
      }
      return aLen - bLen;
    }
    const a = JSON.parse(decoder.decode(bytes.subarray(aStart, aEnd))) as string;
    const b = JSON.parse(decoder.decode(bytes.subarray(bStart, bEnd))) as string;
    return a < b ? -1 : a > b ? 1 : 0;
  }
}

/** Index of the first byte below 0x20 at or after `from`, or -1. Word at a time: most bytes are string bytes. */
function firstControlByte(bytes: Uint8Array, from: number): number {
  let i = from;
  const head = Math.min(bytes.length, i + ((4 - ((bytes.byteOffset + i) % 4)) % 4));
  for (; i < head; i++) if (bytes[i]! < 0x20) return i;
  if (i >= bytes.length) return -1;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (bytes.length - i) >>> 2);
  for (let w = 0; w < words.length; w++) {
    const x = words[w]!;
    // Nonzero when some byte of x is below 0x20 (the "hasless" bit trick; exact for n <= 128).
    if (((x - 0x20202020) & ~x & 0x80808080) !== 0) {
      for (let k = i + w * 4; k < i + w * 4 + 4; k++) if (bytes[k]! < 0x20) return k;
    }
  }
  for (let k = i + words.length * 4; k < bytes.length; k++) if (bytes[k]! < 0x20) return k;
  return -1;
}

function nextIndex(bytes: Buffer, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at < 0 ? bytes.length : at;
}

function fail(reason: string, at: number): never {
  throw new NotCanonicalError(reason, at);
}
