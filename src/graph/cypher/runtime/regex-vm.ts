/**
 * Cypher's `=~`: the pattern (regex-parse.ts) compiled to a Thompson NFA program and run as a Pike VM
 * without captures, so a whole-string match takes O(program × text) steps whatever the pattern:
 * `(a+)+b` over 100 kB of `a` is 100 k steps of a few states, not 2^100000 backtracks. The program
 * is capped at REGEX_PROGRAM_MAX instructions (a `{n,m}` repeat copies its body), and matching tells
 * the budget before each chunk of text, at the number of live states times the chunk's length, so a
 * match that would run too long is stopped by the statement's time and stall limits.
 */
import { runtimeError } from '../language/cypher-error.ts';
import { REGEX_PROGRAM_MAX, parseRegex, type AssertKind, type CodeRanges, type RegexNode } from './regex-parse.ts';

const OP_SET = 0;
const OP_SPLIT = 1;
const OP_JMP = 2;
const OP_ASSERT = 3;
const OP_MATCH = 4;

const ASSERT_KINDS: readonly AssertKind[] = ['bol', 'mbol', 'eol', 'meol', 'word', 'nonword', 'start', 'end'];

/** Code units of text between two tellings of the budget. */
const CHUNK = 256;
/** Work units per (state × character): the budget's one unit per 16 characters read. */
const STEP_UNIT_SHIFT = 4;

/** What matching needs of the statement's budget. */
export interface RegexMeter {
  tick(units: number): void;
}

class CharSet {
  readonly ascii = new Uint8Array(128);
  readonly ranges: CodeRanges;
  readonly negated: boolean;
  readonly unicodeFold: boolean;
  constructor(ranges: CodeRanges, negated: boolean, unicodeFold: boolean, fold: boolean) {
    this.ranges = ranges;
    this.negated = negated;
    this.unicodeFold = unicodeFold;
    for (let c = 0; c < 128; c++) {
      const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
      const hit = inRanges(ranges, c) || (fold && letter && inRanges(ranges, c ^ 0x20));
      this.ascii[c] = hit !== negated ? 1 : 0;
    }
  }

  test(cp: number): boolean {
    if (cp < 128) return this.ascii[cp] === 1;
    let hit = inRanges(this.ranges, cp);
    if (!hit && this.unicodeFold) {
      const s = String.fromCodePoint(cp);
      for (const variant of [s.toLowerCase(), s.toUpperCase()]) {
        const v = variant.codePointAt(0)!;
        if (variant.length === (v > 0xffff ? 2 : 1) && inRanges(this.ranges, v)) hit = true;
      }
    }
    return hit !== this.negated;
  }
}

function inRanges(ranges: CodeRanges, cp: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[2 * mid]!) hi = mid - 1;
    else if (cp > ranges[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Instructions a node compiles to (saturating just past the cap). */
function sizeOf(node: RegexNode): number {
  switch (node.t) {
    case 'empty': return 0;
    case 'set': case 'assert': return 1;
    case 'cat': {
      let sum = 0;
      for (const item of node.items) sum = Math.min(sum + sizeOf(item), REGEX_PROGRAM_MAX + 1);
      return sum;
    }
    case 'alt': {
      let sum = 2 * (node.items.length - 1);
      for (const item of node.items) sum = Math.min(sum + sizeOf(item), REGEX_PROGRAM_MAX + 1);
      return sum;
    }
    case 'rep': {
      const body = sizeOf(node.node);
      const total = node.max === -1
        ? (node.min === 0 ? body + 2 : node.min * body + 1)
        : node.min * body + (node.max - node.min) * (body + 1);
      return Math.min(total, REGEX_PROGRAM_MAX + 1);
    }
  }
}

export class RegexProgram {
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly sets: CharSet[] = [];
  #n = 0;
  /** State visits of the last `matches` call (for tests: at most size × (characters + 1)). */
  lastSteps = 0;

  constructor(root: RegexNode) {
    const size = sizeOf(root) + 1;
    if (size > REGEX_PROGRAM_MAX) {
      throw runtimeError(`Regular expression too large: its program would exceed ${REGEX_PROGRAM_MAX} instructions (the compiled-size cap; a {n,m} repeat copies its body).`, { limit: REGEX_PROGRAM_MAX });
    }
    this.op = new Uint8Array(size);
    this.x = new Int32Array(size);
    this.y = new Int32Array(size);
    this.#emit(root);
    this.#push(OP_MATCH, 0, 0);
  }

  get size(): number {
    return this.#n;
  }

  #push(op: number, x: number, y: number): number {
    const pc = this.#n++;
    this.op[pc] = op;
    this.x[pc] = x;
    this.y[pc] = y;
    return pc;
  }

  #emit(node: RegexNode): void {
    switch (node.t) {
      case 'empty': return;
      case 'set':
        this.sets.push(new CharSet(node.ranges, node.negated, node.unicodeFold, node.fold));
        this.#push(OP_SET, this.sets.length - 1, 0);
        return;
      case 'assert':
        this.#push(OP_ASSERT, ASSERT_KINDS.indexOf(node.kind), 0);
        return;
      case 'cat':
        for (const item of node.items) this.#emit(item);
        return;
      case 'alt': {
        const jumps: number[] = [];
        for (let k = 0; k < node.items.length; k++) {
          if (k < node.items.length - 1) {
            const split = this.#push(OP_SPLIT, 0, 0);
            this.x[split] = this.#n;
            this.#emit(node.items[k]!);
            jumps.push(this.#push(OP_JMP, 0, 0));
            this.y[split] = this.#n;
          } else this.#emit(node.items[k]!);
        }
        for (const j of jumps) this.x[j] = this.#n;
        return;
      }
      case 'rep': {
        const { min, max } = node;
        if (max === -1) {
          if (min === 0) {
            // L: SPLIT body, out; body; JMP L
            const split = this.#push(OP_SPLIT, 0, 0);
            this.x[split] = this.#n;
            this.#emit(node.node);
            this.#push(OP_JMP, split, 0);
            this.y[split] = this.#n;
          } else {
            for (let k = 0; k < min - 1; k++) this.#emit(node.node);
            // L: body; SPLIT L, out
            const loop = this.#n;
            this.#emit(node.node);
            this.#push(OP_SPLIT, loop, this.#n + 1);
          }
          return;
        }
        for (let k = 0; k < min; k++) this.#emit(node.node);
        const splits: number[] = [];
        for (let k = min; k < max; k++) {
          const split = this.#push(OP_SPLIT, 0, 0);
          this.x[split] = this.#n;
          splits.push(split);
          this.#emit(node.node);
        }
        for (const s of splits) this.y[s] = this.#n;
        return;
      }
    }
  }

  /** Whether the WHOLE of `text` matches (Java's `matches()`), telling `meter` before each chunk. */
  matches(text: string, meter: RegexMeter): boolean {
    const n = this.#n;
    let clist = new Int32Array(n);
    let nlist = new Int32Array(n);
    let csize = 0;
    const marks = new Uint32Array(n);
    const stack = new Int32Array(n + 1);
    let gen = 0;
    let steps = 0;
    const len = text.length;
    const op = this.op;
    const xs = this.x;
    const ys = this.y;

    // Adds `start` and its ε-closure at position `i` (prev/cur: the code points around it, -1 past an end).
    const close = (list: Int32Array, size: number, start: number, i: number, prev: number, cur: number): number => {
      let sp = 0;
      stack[sp++] = start;
      while (sp > 0) {
        const pc = stack[--sp]!;
        if (marks[pc] === gen) continue;
        marks[pc] = gen;
        steps++;
        switch (op[pc]) {
          case OP_SET: case OP_MATCH:
            list[size++] = pc;
            break;
          case OP_JMP:
            stack[sp++] = xs[pc]!;
            break;
          case OP_SPLIT:
            stack[sp++] = ys[pc]!;
            stack[sp++] = xs[pc]!;
            break;
          case OP_ASSERT:
            if (assertion(xs[pc]!, text, i, prev, cur)) stack[sp++] = pc + 1;
            break;
        }
      }
      return size;
    };

    meter.tick((n >>> STEP_UNIT_SHIFT) + 1);
    gen++;
    let prev = -1;
    let cur = len > 0 ? text.codePointAt(0)! : -1;
    csize = close(clist, 0, 0, 0, prev, cur);
    let i = 0;
    let nextTick = 0;
    let chunkSteps = 0;
    while (i < len) {
      if (csize === 0) break;
      if (i >= nextTick) {
        // Told before the chunk, at the states alive now or the steps the last chunk took, whichever
        // is more: a match of many live states over 1 MB reaches the clock often enough for the time
        // and stall limits to stop it.
        meter.tick(Math.max((csize + 1) * CHUNK, steps - chunkSteps) >>> STEP_UNIT_SHIFT);
        chunkSteps = steps;
        nextTick = i + CHUNK;
      }
      const width = cur > 0xffff ? 2 : 1;
      const next = i + width;
      const after = next < len ? text.codePointAt(next)! : -1;
      gen++;
      let nsize = 0;
      for (let k = 0; k < csize; k++) {
        const pc = clist[k]!;
        steps++;
        if (op[pc] === OP_SET && this.sets[xs[pc]!]!.test(cur)) nsize = close(nlist, nsize, pc + 1, next, cur, after);
      }
      const swap = clist;
      clist = nlist;
      nlist = swap;
      csize = nsize;
      prev = cur;
      cur = after;
      i = next;
    }
    this.lastSteps = steps;
    if (i < len) return false;
    for (let k = 0; k < csize; k++) if (op[clist[k]!] === OP_MATCH) return true;
    return false;
  }
}

function isTerminator(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
}

function isWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);
}

/** Java's anchors at code-unit position `i`. */
function assertion(kind: number, text: string, i: number, prev: number, cur: number): boolean {
  const len = text.length;
  switch (ASSERT_KINDS[kind]) {
    case 'bol': case 'start':
      return i === 0;
    case 'end':
      return i === len;
    case 'mbol':
      if (i === 0) return true;
      if (i === len || !isTerminator(prev)) return false;
      return !(prev === 0x0d && cur === 0x0a);
    case 'eol':
      // At the end, or before a line terminator that ends the text.
      if (i === len) return true;
      if (i === len - 2) return text.charCodeAt(i) === 0x0d && text.charCodeAt(i + 1) === 0x0a;
      if (i !== len - 1 || !isTerminator(cur)) return false;
      return !(cur === 0x0a && prev === 0x0d);
    case 'meol':
      if (i === len) return true;
      if (!isTerminator(cur)) return false;
      return !(cur === 0x0a && prev === 0x0d);
    case 'word':
      return isWord(prev) !== isWord(cur);
    case 'nonword':
      return isWord(prev) === isWord(cur);
    default:
      return false;
  }
}

/** Compiled programs by pattern text, least recently used first. */
const cache = new Map<string, RegexProgram>();
const CACHE_MAX = 64;

/** The program of `pattern`, compiled once (the budget told of the pattern's length before). */
export function compileRegex(pattern: string, meter: RegexMeter): RegexProgram {
  let program = cache.get(pattern);
  if (program !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, program);
    return program;
  }
  meter.tick((pattern.length >>> STEP_UNIT_SHIFT) + 1);
  program = new RegexProgram(parseRegex(pattern));
  cache.set(pattern, program);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return program;
}

/** `text =~ pattern`: whether the whole text matches. */
export function regexMatches(text: string, pattern: string, meter: RegexMeter): boolean {
  return compileRegex(pattern, meter).matches(text, meter);
}
