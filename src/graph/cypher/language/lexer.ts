import { positionOf, syntaxError, syntaxProblem, unsupported, valueInvalid } from './cypher-error.ts';
import { MAX_NESTING, MAX_QUERY_BYTES, tooDeep, tooLong } from './limits.ts';
import { loneSurrogateAt } from './well-formed.ts';

type TokenKind = 'ident' | 'quoted' | 'string' | 'number' | 'parameter' | 'symbol' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Identifier name, string contents, parameter name, or the symbol itself. */
  readonly text: string;
  /** Numeric value of a `number` token. */
  readonly value: number;
  /** Whether a `number` token was written as an integer (no dot or exponent). */
  readonly integer: boolean;
  readonly offset: number;
  readonly end: number;
}

export interface Lexed {
  readonly tokens: readonly Token[];
  /** For each opening `(`, `[` or `{`, the index of its closing token, or -1 when unclosed. */
  readonly closers: readonly number[];
}

const IDENT_START = /[\p{ID_Start}_]/uy;
const IDENT_REST = /[\p{ID_Continue}]*/uy;
const NUMBER = /(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?)/y;
const TWO_CHAR = new Set(['<>', '<=', '>=', '+=', '=~', '..', '!=']);
const ONE_CHAR = new Set(['(', ')', '[', ']', '{', '}', ',', '.', ':', '|', ';', '=', '<', '>', '+', '-', '*', '/', '%', '^']);
const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS = new Set([')', ']', '}']);

function token(kind: TokenKind, text: string, offset: number, end: number, value = 0, integer = false): Token {
  return { kind, text, value, integer, offset, end };
}

/** Splits Cypher text into tokens, enforcing the size and nesting limits before any parsing. */
export function lex(source: string): Lexed {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_QUERY_BYTES) throw tooLong(bytes);
  const lone = loneSurrogateAt(source);
  if (lone !== -1) throw valueInvalid(source, lone, `the text holds a lone surrogate (\\u${source.charCodeAt(lone).toString(16).toUpperCase()}), which is not well-formed Unicode.`);
  const tokens: Token[] = [];
  // Open delimiters, only to enforce the nesting limit while lexing.
  const open: number[] = [];
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0' || c === '\ufeff') {
      i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      if (close === -1) throw syntaxProblem(source, i, 'this block comment is never closed with */.');
      i = close + 2;
      continue;
    }
    const start = i;
    IDENT_START.lastIndex = i;
    if (IDENT_START.test(source)) {
      IDENT_REST.lastIndex = IDENT_START.lastIndex;
      IDENT_REST.test(source);
      i = IDENT_REST.lastIndex;
      tokens.push(token('ident', source.slice(start, i), start, i));
      continue;
    }
    if (c === '`') {
      const [name, end] = readQuoted(source, i);
      i = end;
      tokens.push(token('quoted', name, start, i));
      continue;
    }
    if (c === "'" || c === '"') {
      const [text, end] = readString(source, i);
      i = end;
      tokens.push(token('string', text, start, i));
      continue;
    }
    NUMBER.lastIndex = i;
    if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      NUMBER.test(source);
      i = NUMBER.lastIndex;
      const text = source.slice(start, i);
      IDENT_START.lastIndex = i;
      if (i < n && (IDENT_START.test(source) || /[0-9]/.test(source[i]!))) {
        throw syntaxError(source, i, 'a space or an operator after the number', source[i]!);
      }
      const integer = !/[.eE]/.test(text) || /^0[xXoO]/.test(text);
      const value = Number(text);
      if (integer && !Number.isSafeInteger(value)) {
        // Past Cypher's own 64-bit integers the literal is an error in any engine; within them, past ours.
        if (BigInt(text) >= 2n ** 63n) throw syntaxProblem(source, start, `the integer ${text} overflows a 64-bit integer.`);
        throw unsupported(source, start, `the integer ${text} (integers must lie within ±9007199254740991)`);
      }
      if (!Number.isFinite(value)) throw unsupported(source, start, `the number ${text} (it does not fit a 64-bit float)`);
      tokens.push(token('number', text, start, i, value, integer));
      continue;
    }
    if (c === '$') {
      i++;
      let name: string;
      if (source[i] === '`') {
        const [quoted, end] = readQuoted(source, i);
        name = quoted;
        i = end;
      } else {
        IDENT_START.lastIndex = i;
        const digits = /^[0-9]+/.exec(source.slice(i, i + 20));
        if (IDENT_START.test(source)) {
          IDENT_REST.lastIndex = IDENT_START.lastIndex;
          IDENT_REST.test(source);
          name = source.slice(i, IDENT_REST.lastIndex);
          i = IDENT_REST.lastIndex;
        } else if (digits) {
          name = digits[0];
          i += name.length;
        } else {
          throw syntaxError(source, i, 'a parameter name after $', i < n ? String.fromCodePoint(source.codePointAt(i)!) : null);
        }
      }
      tokens.push(token('parameter', name, start, i));
      continue;
    }
    const two = source.slice(i, i + 2);
    if (TWO_CHAR.has(two)) {
      i += 2;
      tokens.push(token('symbol', two, start, i));
      continue;
    }
    if (ONE_CHAR.has(c)) {
      i++;
      const index = tokens.length;
      tokens.push(token('symbol', c, start, i));
      if (OPENERS[c] !== undefined) {
        open.push(index);
        if (open.length > MAX_NESTING) {
          const { line, column } = positionOf(source, start);
          throw tooDeep(line, column);
        }
      } else if (CLOSERS.has(c)) {
        const top = open.at(-1);
        if (top !== undefined && OPENERS[tokens[top]!.text] === c) open.pop();
        // An unmatched closer is left for the parser, which reports it with what it expected.
      }
      continue;
    }
    throw syntaxError(source, i, 'a Cypher token', String.fromCodePoint(source.codePointAt(i)!));
  }
  tokens.push(token('eof', '', n, n));
  return { tokens, closers: matchClosers(tokens) };
}

function matchClosers(tokens: readonly Token[]): number[] {
  const result = new Array<number>(tokens.length).fill(-1);
  const stack: number[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind !== 'symbol') continue;
    if (OPENERS[t.text] !== undefined) stack.push(k);
    else if (CLOSERS.has(t.text)) {
      const top = stack.at(-1);
      if (top !== undefined && OPENERS[tokens[top]!.text] === t.text) {
        stack.pop();
        result[top] = k;
      }
    }
  }
  return result;
}

function readQuoted(source: string, start: number): [string, number] {
  let i = start + 1;
  let out = '';
  for (;;) {
    const close = source.indexOf('`', i);
    if (close === -1) throw syntaxProblem(source, start, 'this backtick-quoted name is never closed with `.');
    out += source.slice(i, close);
    // A doubled backtick stands for one backtick inside the name.
    if (source[close + 1] === '`') {
      out += '`';
      i = close + 2;
      continue;
    }
    if (out.length === 0) throw syntaxProblem(source, start, 'a backtick-quoted name cannot be empty.');
    return [out, close + 1];
  }
}

const ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function readString(source: string, start: number): [string, number] {
  const quote = source[start]!;
  let i = start + 1;
  let out = '';
  while (i < source.length) {
    const c = source[i]!;
    if (c === quote) return [out, i + 1];
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = source[i + 1];
    if (e === undefined) break;
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    if (e === 'u' || e === 'U') {
      const width = e === 'u' ? 4 : 8;
      const hex = source.slice(i + 2, i + 2 + width);
      if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) {
        throw syntaxError(source, i, `${width} hex digits after \\${e}`, hex.length === 0 ? null : hex);
      }
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) throw syntaxProblem(source, i, `\\${e}${hex} is not a Unicode code point.`);
      if (code >= 0xd800 && code <= 0xdfff) {
        // A high surrogate escape followed by a low one is one character (as JSON and Java write it); alone, either is ill-formed.
        const low = /^\\u([0-9a-fA-F]{4})/.exec(source.slice(i + 2 + width, i + 8 + width));
        const lowCode = low && width === 4 ? Number.parseInt(low[1]!, 16) : -1;
        if (code > 0xdbff || lowCode < 0xdc00 || lowCode > 0xdfff) {
          throw valueInvalid(source, i, `\\${e}${hex} is a lone surrogate, not a character: strings must be well-formed Unicode (write the character itself, a code point escape such as \\U0001F600, or a high and low surrogate escape pair).`);
        }
        out += String.fromCharCode(code, lowCode);
        i += 2 + width + 6;
        continue;
      }
      out += String.fromCodePoint(code);
      i += 2 + width;
      continue;
    }
    throw syntaxError(source, i, "an escape (\\\\, \\', \\\", \\b, \\f, \\n, \\r, \\t, \\uXXXX or \\UXXXXXXXX)", `\\${e}`);
  }
  throw syntaxProblem(source, start, 'this string literal is never closed.');
}
