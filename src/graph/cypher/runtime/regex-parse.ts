/**
 * The parser of Cypher's `=~` patterns: the Java (java.util.regex) dialect, restricted to what a
 * Thompson NFA runs in linear time. It yields a small AST (regex-vm.ts compiles and runs it).
 * Constructs that need backtracking (backreferences, lookaround, atomic groups, possessive
 * quantifiers) are refused by name with TG_CYPHER_UNSUPPORTED; a malformed pattern is a
 * TG_CYPHER_RUNTIME error "Invalid regular expression ... at index N: ...", as Java's
 * PatternSyntaxException is in Cypher.
 */
import { ToolgraphError } from '../../../errors/index.ts';
import { runtimeError } from '../language/cypher-error.ts';

/** The most AST nodes (and, in regex-vm.ts, program instructions) one pattern may make. */
export const REGEX_PROGRAM_MAX = 10_000;
/** The deepest nesting of groups a pattern may have. */
const REGEX_NESTING_MAX = 200;

/** A set of code points as sorted, disjoint, inclusive [from, to] pairs. */
export type CodeRanges = readonly number[];

export type RegexNode =
  | { readonly t: 'empty' }
  /** One code point from `ranges` (negated: any other); `fold`: ASCII case-insensitive; `unicodeFold`: simple Unicode folding too. */
  | { readonly t: 'set'; readonly ranges: CodeRanges; readonly negated: boolean; readonly fold: boolean; readonly unicodeFold: boolean }
  | { readonly t: 'cat'; readonly items: readonly RegexNode[] }
  | { readonly t: 'alt'; readonly items: readonly RegexNode[] }
  /** `max` -1: unbounded. */
  | { readonly t: 'rep'; readonly node: RegexNode; readonly min: number; readonly max: number }
  | { readonly t: 'assert'; readonly kind: AssertKind };

/** `^`/`$` (single-line and multiline forms), `\b`, `\B`, `\A`, `\z`, `\Z`. */
export type AssertKind = 'bol' | 'mbol' | 'eol' | 'meol' | 'word' | 'nonword' | 'start' | 'end';

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
  x: boolean;
  u: boolean;
}

const DIGIT: CodeRanges = [0x30, 0x39];
const WORD: CodeRanges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
/** Java's \s: [ \t\n\x0B\f\r]. */
const SPACE: CodeRanges = [0x09, 0x0d, 0x20, 0x20];
/** Java's line terminators, which `.` does not match without (?s): \n \r \u0085 \u2028 \u2029. */
const LINE_TERMINATORS: CodeRanges = [0x0a, 0x0a, 0x0d, 0x0d, 0x85, 0x85, 0x2028, 0x2029];
const MAX_CODE_POINT = 0x10ffff;

/** The complement of a range set. */
function complement(ranges: CodeRanges): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i]! > next) out.push(next, ranges[i]! - 1);
    next = ranges[i + 1]! + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

/** Sorts and merges [from, to] pairs. */
function normalize(pairs: number[]): number[] {
  const list: [number, number][] = [];
  for (let i = 0; i < pairs.length; i += 2) list.push([pairs[i]!, pairs[i + 1]!]);
  list.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [from, to] of list) {
    const last = out.length - 1;
    if (last > 0 && from <= out[last]! + 1) out[last] = Math.max(out[last]!, to);
    else out.push(from, to);
  }
  return out;
}

function invalid(pattern: string, index: number, problem: string): ToolgraphError {
  return runtimeError(`Invalid regular expression '${cut(pattern)}' at index ${index}: ${problem}.`, { pattern: cut(pattern), index, problem });
}

function refused(pattern: string, index: number, construct: string): ToolgraphError {
  return new ToolgraphError(
    'TG_CYPHER_UNSUPPORTED',
    `Regular expression '${cut(pattern)}' at index ${index}: ${construct} is not supported: =~ runs on a linear-time engine, which cannot backtrack (see docs/cypher.md).`,
    { details: { construct, index } },
  );
}

function cut(pattern: string): string {
  return pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern;
}

/** Parses a pattern into its AST; throws TG_CYPHER_RUNTIME when it is malformed, TG_CYPHER_UNSUPPORTED for refused constructs. */
export function parseRegex(pattern: string): RegexNode {
  return new RegexParser(pattern).parse();
}

class RegexParser {
  readonly #p: string;
  #i = 0;
  #nodes = 0;
  #depth = 0;
  #flags: Flags = { i: false, s: false, m: false, x: false, u: false };

  constructor(pattern: string) {
    this.#p = pattern;
  }

  parse(): RegexNode {
    const node = this.#alternation();
    if (this.#i < this.#p.length) {
      // Only an unmatched ')' stops the top-level alternation early.
      throw invalid(this.#p, this.#i, "Unmatched closing ')'");
    }
    return node;
  }

  #count(): void {
    if (++this.#nodes > REGEX_PROGRAM_MAX) {
      throw runtimeError(`Regular expression too large: more than ${REGEX_PROGRAM_MAX} elements (the compiled-size cap).`, { limit: REGEX_PROGRAM_MAX });
    }
  }

  #nextCp(): number {
    const cp = this.#p.codePointAt(this.#i);
    if (cp === undefined) throw invalid(this.#p, this.#i, 'Unexpected end of pattern');
    this.#i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  /** In (?x) mode, skips whitespace and `#` comments. */
  #skipSpace(): void {
    if (!this.#flags.x) return;
    for (;;) {
      const c = this.#p.charCodeAt(this.#i);
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) this.#i++;
      else if (c === 0x23) {
        while (this.#i < this.#p.length && this.#p.charCodeAt(this.#i) !== 0x0a) this.#i++;
      } else return;
    }
  }

  #alternation(): RegexNode {
    const items = [this.#sequence()];
    while (this.#p.charCodeAt(this.#i) === 0x7c) {
      this.#i++;
      items.push(this.#sequence());
    }
    if (items.length === 1) return items[0]!;
    this.#count();
    return { t: 'alt', items };
  }

  #sequence(): RegexNode {
    const items: RegexNode[] = [];
    for (;;) {
      this.#skipSpace();
      const c = this.#p.charCodeAt(this.#i);
      if (this.#i >= this.#p.length || c === 0x7c || c === 0x29) break;
      const atom = this.#atom();
      if (atom === null) continue;
      items.push(this.#quantified(atom));
    }
    if (items.length === 0) return { t: 'empty' };
    if (items.length === 1) return items[0]!;
    this.#count();
    return { t: 'cat', items };
  }

  #quantified(atom: RegexNode): RegexNode {
    this.#skipSpace();
    const start = this.#i;
    const c = this.#p.charCodeAt(this.#i);
    let min: number;
    let max: number;
    if (c === 0x2a) [min, max] = [0, -1];
    else if (c === 0x2b) [min, max] = [1, -1];
    else if (c === 0x3f) [min, max] = [0, 1];
    else if (c === 0x7b) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.#p.slice(this.#i, this.#i + 24));
      if (m === null) throw invalid(this.#p, this.#i, 'Illegal repetition');
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
      if (min > REGEX_PROGRAM_MAX || max > REGEX_PROGRAM_MAX) {
        throw runtimeError(`Regular expression too large: the repetition {${m[1]}${m[2] ?? ''}} exceeds ${REGEX_PROGRAM_MAX} (the compiled-size cap).`, { limit: REGEX_PROGRAM_MAX });
      }
      if (max !== -1 && max < min) throw invalid(this.#p, this.#i, 'Illegal repetition range');
      this.#i += m[0].length - 1;
    } else return atom;
    this.#i++;
    // Lazy quantifiers match the same whole strings as greedy ones; possessive ones do not.
    const suffix = this.#p.charCodeAt(this.#i);
    if (suffix === 0x3f) this.#i++;
    else if (suffix === 0x2b) throw refused(this.#p, start, 'a possessive quantifier');
    this.#skipSpace();
    const after = this.#p.charCodeAt(this.#i);
    if (after === 0x2a || after === 0x2b || after === 0x3f) throw invalid(this.#p, this.#i, `Dangling meta character '${this.#p[this.#i]}'`);
    this.#count();
    return { t: 'rep', node: atom, min, max };
  }

  #set(ranges: CodeRanges, negated = false): RegexNode {
    this.#count();
    return { t: 'set', ranges, negated, fold: this.#flags.i, unicodeFold: this.#flags.i && this.#flags.u };
  }

  #literal(cp: number): RegexNode {
    return this.#set([cp, cp]);
  }

  /** One atom, or null for an inline flag group `(?i)` that only changes the flags. */
  #atom(): RegexNode | null {
    const start = this.#i;
    const cp = this.#nextCp();
    switch (cp) {
      case 0x2e: // .
        return this.#flags.s ? this.#set([0, MAX_CODE_POINT]) : this.#set(LINE_TERMINATORS, true);
      case 0x5e: // ^
        this.#count();
        return { t: 'assert', kind: this.#flags.m ? 'mbol' : 'bol' };
      case 0x24: // $
        this.#count();
        return { t: 'assert', kind: this.#flags.m ? 'meol' : 'eol' };
      case 0x28:
        return this.#group(start);
      case 0x5b:
        return this.#classAtom();
      case 0x5c:
        return this.#escape(start);
      case 0x2a: case 0x2b: case 0x3f:
        throw invalid(this.#p, start, `Dangling meta character '${String.fromCodePoint(cp)}'`);
      case 0x7b:
        throw invalid(this.#p, start, 'Illegal repetition');
      default:
        return this.#literal(cp);
    }
  }

  #group(start: number): RegexNode | null {
    if (++this.#depth > REGEX_NESTING_MAX) {
      throw runtimeError(`Regular expression nested too deeply: more than ${REGEX_NESTING_MAX} groups inside each other.`, { limit: REGEX_NESTING_MAX });
    }
    const saved = { ...this.#flags };
    if (this.#p.charCodeAt(this.#i) === 0x3f) {
      this.#i++;
      const c = this.#p[this.#i];
      if (c === ':') this.#i++;
      else if (c === '=' || c === '!') throw refused(this.#p, start, c === '=' ? 'a lookahead (?=…)' : 'a negative lookahead (?!…)');
      else if (c === '>') throw refused(this.#p, start, 'an atomic group (?>…)');
      else if (c === '<') {
        const next = this.#p[this.#i + 1];
        if (next === '=' || next === '!') throw refused(this.#p, start, next === '=' ? 'a lookbehind (?<=…)' : 'a negative lookbehind (?<!…)');
        const m = /^<([a-zA-Z][a-zA-Z0-9]*)>/.exec(this.#p.slice(this.#i, this.#i + 80));
        if (m === null) throw invalid(this.#p, this.#i, 'named capturing group is missing trailing \'>\' or has an invalid name');
        this.#i += m[0].length;
      } else {
        // Inline flags: (?idmsux-idmsux) or (?flags:X).
        let on = true;
        for (;;) {
          const f = this.#p[this.#i];
          if (f === undefined) throw invalid(this.#p, this.#i, 'Unknown inline modifier');
          this.#i++;
          if (f === '-') on = false;
          else if (f === 'i' || f === 's' || f === 'm' || f === 'x' || f === 'u') this.#flags[f] = on;
          else if (f === ')') {
            this.#depth--;
            return null; // the flags stay for the rest of the enclosing group
          } else if (f === ':') break;
          else if (f === 'd' || f === 'U') throw refused(this.#p, this.#i - 1, `the inline flag (?${f})`);
          else throw invalid(this.#p, this.#i - 1, 'Unknown inline modifier');
        }
      }
    }
    const inner = this.#alternation();
    if (this.#p.charCodeAt(this.#i) !== 0x29) throw invalid(this.#p, this.#i, "Unclosed group");
    this.#i++;
    this.#flags = saved;
    this.#depth--;
    return inner;
  }

  /** An escape outside a class: a class escape, an assertion, a quote, or a literal. */
  #escape(start: number): RegexNode | null {
    const c = this.#p[this.#i];
    if (c === undefined) throw invalid(this.#p, this.#i, 'Unexpected internal error (a trailing backslash)');
    switch (c) {
      case 'b': this.#i++; this.#count(); return { t: 'assert', kind: 'word' };
      case 'B': this.#i++; this.#count(); return { t: 'assert', kind: 'nonword' };
      case 'A': this.#i++; this.#count(); return { t: 'assert', kind: 'start' };
      case 'z': this.#i++; this.#count(); return { t: 'assert', kind: 'end' };
      case 'Z': this.#i++; this.#count(); return { t: 'assert', kind: 'eol' };
      case 'G': throw refused(this.#p, start, 'the \\G anchor');
      case 'k': throw refused(this.#p, start, 'a named backreference \\k<name>');
      case 'Q': {
        this.#i++;
        const end = this.#p.indexOf('\\E', this.#i);
        const text = this.#p.slice(this.#i, end === -1 ? undefined : end);
        this.#i = end === -1 ? this.#p.length : end + 2;
        const items: RegexNode[] = [];
        for (const ch of text) items.push(this.#literal(ch.codePointAt(0)!));
        if (items.length === 0) return null;
        if (items.length === 1) return items[0]!;
        this.#count();
        return { t: 'cat', items };
      }
      default:
        if (c >= '1' && c <= '9') throw refused(this.#p, start, `a backreference \\${c}`);
    }
    const cls = this.#classEscape();
    if (cls !== null) return this.#set(cls.ranges, cls.negated);
    return this.#literal(this.#literalEscape(start));
  }

  /** `\d \D \w \W \s \S` (and `\h \H \v \V`): consumed and returned, or null. */
  #classEscape(): { ranges: CodeRanges; negated: boolean } | null {
    const c = this.#p[this.#i];
    let ranges: CodeRanges;
    switch (c) {
      case 'd': case 'D': ranges = DIGIT; break;
      case 'w': case 'W': ranges = WORD; break;
      case 's': case 'S': ranges = SPACE; break;
      case 'h': case 'H': ranges = [0x09, 0x09, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x180e, 0x180e, 0x2000, 0x200a, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000]; break;
      case 'v': case 'V': ranges = [0x0a, 0x0d, 0x85, 0x85, 0x2028, 0x2029]; break;
      case 'p': case 'P': throw refused(this.#p, this.#i - 1, `the Unicode property class \\${c}{…}`);
      default: return null;
    }
    this.#i++;
    return { ranges, negated: c === c.toUpperCase() };
  }

  /** A literal escape (after the backslash): `\t \n \r \f \a \e \0oo \xhh \x{h…} \uXXXX \cX` or an escaped non-letter. */
  #literalEscape(start: number): number {
    const cp = this.#nextCp();
    const hex = (digits: string): number => {
      if (!/^[0-9a-fA-F]+$/.test(digits)) throw invalid(this.#p, start, 'Illegal hexadecimal escape sequence');
      return parseInt(digits, 16);
    };
    switch (cp) {
      case 0x74: return 0x09; // t
      case 0x6e: return 0x0a; // n
      case 0x72: return 0x0d; // r
      case 0x66: return 0x0c; // f
      case 0x61: return 0x07; // a
      case 0x65: return 0x1b; // e
      case 0x30: { // 0 + 1-3 octal digits
        const m = /^([0-3][0-7]{0,2}|[0-7]{1,2})/.exec(this.#p.slice(this.#i, this.#i + 3));
        if (m === null) throw invalid(this.#p, start, 'Illegal octal escape sequence');
        this.#i += m[1]!.length;
        return parseInt(m[1]!, 8);
      }
      case 0x78: { // x
        if (this.#p[this.#i] === '{') {
          const end = this.#p.indexOf('}', this.#i);
          if (end === -1) throw invalid(this.#p, start, 'Unclosed hexadecimal escape sequence');
          const value = hex(this.#p.slice(this.#i + 1, end));
          if (value > MAX_CODE_POINT) throw invalid(this.#p, start, 'Hexadecimal codepoint is too big');
          this.#i = end + 1;
          return value;
        }
        const value = hex(this.#p.slice(this.#i, this.#i + 2).padEnd(2, '!'));
        this.#i += 2;
        return value;
      }
      case 0x75: { // u
        const value = hex(this.#p.slice(this.#i, this.#i + 4).padEnd(4, '!'));
        this.#i += 4;
        // A surrogate pair written as two \u escapes is one code point.
        if (value >= 0xd800 && value <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(this.#p.slice(this.#i, this.#i + 6))) {
          const low = parseInt(this.#p.slice(this.#i + 2, this.#i + 6), 16);
          this.#i += 6;
          return 0x10000 + ((value - 0xd800) << 10) + (low - 0xdc00);
        }
        return value;
      }
      case 0x63: { // c
        const ch = this.#nextCp();
        return ch ^ 64;
      }
      default:
        // Java: a backslash before a letter or digit not listed above is an error; before anything else it quotes it.
        if ((cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39)) {
          throw invalid(this.#p, start, `Illegal/unsupported escape sequence '\\${String.fromCodePoint(cp)}'`);
        }
        return cp;
    }
  }

  #classAtom(): RegexNode {
    const { ranges, negated } = this.#classBody();
    return this.#set(ranges, negated);
  }

  /** A class after its `[`: `[^…]`, ranges, class escapes, nested classes (union); `&&` is refused. */
  #classBody(): { ranges: number[]; negated: boolean } {
    const open = this.#i - 1;
    let negated = false;
    if (this.#p[this.#i] === '^') {
      negated = true;
      this.#i++;
    }
    const pairs: number[] = [];
    let first = true;
    for (;;) {
      if (this.#flags.x) this.#skipSpace();
      if (this.#i >= this.#p.length) throw invalid(this.#p, open, 'Unclosed character class');
      const c = this.#p[this.#i];
      if (c === ']' && !first) {
        this.#i++;
        break;
      }
      first = false;
      if (c === '[') {
        this.#i++;
        const inner = this.#classBody();
        pairs.push(...(inner.negated ? complement(normalize(inner.ranges)) : inner.ranges));
        continue;
      }
      if (c === '&' && this.#p[this.#i + 1] === '&') throw refused(this.#p, this.#i, 'a class intersection &&');
      const lowStart = this.#i;
      let low: number;
      if (c === '\\') {
        this.#i++;
        if (this.#p[this.#i] === 'Q') {
          this.#i++;
          const end = this.#p.indexOf('\\E', this.#i);
          const text = this.#p.slice(this.#i, end === -1 ? undefined : end);
          this.#i = end === -1 ? this.#p.length : end + 2;
          for (const ch of text) pairs.push(ch.codePointAt(0)!, ch.codePointAt(0)!);
          continue;
        }
        const cls = this.#classEscape();
        if (cls !== null) {
          pairs.push(...(cls.negated ? complement(cls.ranges) : cls.ranges));
          continue;
        }
        if (this.#p[this.#i] === 'b') throw invalid(this.#p, lowStart, 'Illegal/unsupported escape sequence \'\\b\' in a class');
        low = this.#literalEscape(lowStart);
      } else low = this.#nextCp();
      if (this.#flags.x) this.#skipSpace();
      if (this.#p[this.#i] === '-' && this.#p[this.#i + 1] !== ']' && this.#p[this.#i + 1] !== '[' && this.#i + 1 < this.#p.length) {
        this.#i++;
        if (this.#flags.x) this.#skipSpace();
        let high: number;
        const highStart = this.#i;
        if (this.#p[this.#i] === '\\') {
          this.#i++;
          if (this.#classEscape() !== null) throw invalid(this.#p, highStart, 'Illegal character range');
          high = this.#literalEscape(highStart);
        } else high = this.#nextCp();
        if (high < low) throw invalid(this.#p, highStart, 'Illegal character range');
        pairs.push(low, high);
      } else pairs.push(low, low);
      if (pairs.length > 2 * REGEX_PROGRAM_MAX) this.#count();
    }
    return { ranges: normalize(pairs), negated };
  }
}
