import { isUtf8 } from 'node:buffer';

/** One member of the root object: the key (decoded) and the byte range of its value. */
export interface CanonicalMember {
  readonly key: string;
  readonly start: number;
  readonly end: number;
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
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A validating parse of `bytes` that accepts exactly the RFC 8785 (JCS) serialisations: valid UTF-8,
 * no whitespace, strings escaped as JSON.stringify escapes them (`\"`, `\\`, `\b \f \n \r \t`,
 * `\u00xx` in lowercase for other controls, nothing else), numbers in ECMAScript shortest form, and
 * object keys strictly increasing in UTF-16 code-unit order (so no duplicates). Such bytes equal
 * JCS(JSON.parse(bytes)), and because JCS is applied recursively, every value's byte range is the JCS
 * of that value: digests of parts can be taken over ranges without re-serialising. Builds no values
 * (a fraction of JSON.parse's cost); returns the members of the root object (undefined for another
 * root). Iterative, so deep nesting cannot overflow the call stack.
 */
export function scanCanonicalJson(bytes: Uint8Array): CanonicalMember[] | undefined {
  if (!isUtf8(bytes)) throw new NotCanonicalError('not valid UTF-8', 0);
  // JCS escapes every control character in strings and writes no whitespace, so no byte below 0x20
  // may appear anywhere; checking that up front keeps the per-byte string loop to two compares.
  const control = firstControlByte(bytes);
  if (control >= 0) throw new NotCanonicalError('a control character or whitespace', control);
  return new Scanner(bytes).document();
}

/** Index of the first byte below 0x20, or -1. Word at a time: the bulk of a schema is string bytes. */
function firstControlByte(bytes: Uint8Array): number {
  let i = 0;
  const head = Math.min(bytes.length, (4 - (bytes.byteOffset % 4)) % 4);
  for (; i < head; i++) if (bytes[i]! < 0x20) return i;
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

class Scanner {
  readonly bytes: Buffer;
  pos = 0;
  /** The next backslash at or after the last search (the length when there is none). */
  nextBackslash = -1;
  /** Whether the last string scanned was ASCII without escapes (then byte order is code-unit order). */
  lastStringPlain = true;

  constructor(bytes: Uint8Array) {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  document(): CanonicalMember[] | undefined {
    const bytes = this.bytes;
    const length = bytes.length;
    // Per open container: 1 object, 0 array; for objects, the previous key's range and plainness.
    const kinds: number[] = [];
    const keyStarts: number[] = [];
    const keyEnds: number[] = [];
    const keyPlain: boolean[] = [];
    let rootMembers: CanonicalMember[] | undefined;
    let memberKey = '';
    let memberStart = 0;

    const scanKey = (first: boolean): void => {
      const start = this.pos;
      if (bytes[start] !== QUOTE) fail('expected a key', start);
      const end = this.string(start, true);
      const depth = kinds.length - 1;
      if (!first && this.compareKeys(keyStarts[depth]!, keyEnds[depth]!, keyPlain[depth]!, start, end, this.lastStringPlain) >= 0) {
        fail('keys not in strictly increasing code-unit order', start);
      }
      keyStarts[depth] = start;
      keyEnds[depth] = end;
      keyPlain[depth] = this.lastStringPlain;
      if (bytes[end] !== COLON) fail('expected a colon right after a key', end);
      this.pos = end + 1;
      if (depth === 0) {
        memberKey = JSON.parse(decoder.decode(bytes.subarray(start, end))) as string;
        memberStart = end + 1;
      }
    };

    for (;;) {
      // A value starts at pos.
      const c = bytes[this.pos];
      if (c === QUOTE) {
        this.pos = this.string(this.pos);
      } else if (c === OPEN_OBJECT) {
        this.pos++;
        if (bytes[this.pos] === CLOSE_OBJECT) {
          this.pos++;
        } else {
          kinds.push(1);
          if (kinds.length === 1) rootMembers = [];
          scanKey(true);
          continue;
        }
      } else if (c === OPEN_ARRAY) {
        this.pos++;
        if (bytes[this.pos] === CLOSE_ARRAY) {
          this.pos++;
        } else {
          kinds.push(0);
          continue;
        }
      } else if (c === 0x74) {
        this.literal(TRUE);
      } else if (c === 0x66) {
        this.literal(FALSE);
      } else if (c === 0x6e) {
        this.literal(NULL);
      } else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
        this.number();
      } else {
        fail(c === undefined ? 'unexpected end' : 'not canonical JSON (whitespace or an unexpected character)', this.pos);
      }
      // A value ended at pos: close containers as far as they end, then go on to the next value.
      for (;;) {
        const depth = kinds.length;
        if (depth === 0) {
          if (this.pos !== length) fail('bytes after the end of the document', this.pos);
          return rootMembers;
        }
        const kind = kinds[depth - 1]!;
        const next = bytes[this.pos];
        if (kind === 1 && depth === 1) rootMembers!.push({ key: memberKey, start: memberStart, end: this.pos });
        if (next === COMMA) {
          this.pos++;
          if (kind === 1) scanKey(false);
          break;
        }
        if (next === (kind === 1 ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          this.pos++;
          kinds.pop();
          continue;
        }
        fail(next === undefined ? 'unexpected end' : 'expected a comma or the end of the container', this.pos);
      }
    }
  }

  /**
   * Scans the string opening at `start`; returns the position after its closing quote. Value strings
   * (most of a schema's bytes) jump from quote to quote with the native indexOf; keys are short and
   * walked byte by byte to learn whether they are plain.
   */
  string(start: number, key = false): number {
    const bytes = this.bytes;
    if (!key) {
      let i = start + 1;
      for (;;) {
        const quote = bytes.indexOf(QUOTE, i);
        if (quote < 0) fail('unterminated string', start);
        if (this.nextBackslash < i) this.nextBackslash = nextIndex(bytes, BACKSLASH, i);
        if (this.nextBackslash > quote) return quote + 1;
        i = this.escape(this.nextBackslash);
      }
    }
    const length = bytes.length;
    let plain = true;
    let i = start + 1;
    for (;;) {
      if (i >= length) fail('unterminated string', start);
      const c = bytes[i]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        plain = false;
        i = this.escape(i);
      } else {
        if (c >= 0x80) plain = false;
        i++;
      }
    }
    this.lastStringPlain = plain;
    return i + 1;
  }

  /** Checks the escape at `i` is one JCS writes; returns the position after it. */
  escape(i: number): number {
    const bytes = this.bytes;
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

  literal(word: readonly number[]): void {
    for (let k = 0; k < word.length; k++) if (this.bytes[this.pos + k] !== word[k]) fail('not JSON', this.pos);
    this.pos += word.length;
  }

  number(): void {
    const bytes = this.bytes;
    const start = this.pos;
    let pos = start;
    while (pos < bytes.length) {
      const c = bytes[pos]!;
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) pos++;
      else break;
    }
    // ECMAScript never writes a number longer than 25 characters (-1.2345678901234567e-308).
    if (pos - start > 32) fail('a number not in ECMAScript shortest form', start);
    const text = String.fromCharCode(...bytes.subarray(start, pos));
    // JCS writes numbers as ECMAScript's Number::toString does; anything else (-0, 1.0, 1E2, 01) is not canonical.
    if (String(Number(text)) !== text) fail(`a number not in ECMAScript shortest form (${text})`, start);
    this.pos = pos;
  }

  /** Code-unit order of two keys (ranges include the quotes): negative, 0 or positive. */
  compareKeys(aStart: number, aEnd: number, aPlain: boolean, bStart: number, bEnd: number, bPlain: boolean): number {
    const bytes = this.bytes;
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

function nextIndex(bytes: Buffer, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at < 0 ? bytes.length : at;
}

function fail(reason: string, at: number): never {
  throw new NotCanonicalError(reason, at);
}
