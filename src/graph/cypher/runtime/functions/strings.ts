import { forEachOccurrence, searchTableBytes } from '../string-search.ts';
import { CHARS_PER_UNIT_SHIFT, type Value } from '../values.ts';
import { argumentError, codePoints, defineFunctions, nullIn, typeError, unary } from './define.ts';
import type { RunContext } from '../run-context.ts';

/** Work of reading `n` characters: one unit per 16, told before the read. */
function tickChars(ctx: RunContext, n: number): void {
  if (n >>> CHARS_PER_UNIT_SHIFT > 0) ctx.budget.tick(n >>> CHARS_PER_UNIT_SHIFT);
}

/**
 * The UTF-16 offset of code point `cp` of `text` (its length when past the end): strings are indexed
 * by code point, as size() counts them, so a surrogate pair is one character.
 */
function unitOffset(text: string, cp: number, from = 0): number {
  let i = from;
  for (let n = 0; n < cp && i < text.length; n++) {
    const u = text.charCodeAt(i);
    i += u >= 0xd800 && u <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/** A string argument (null handled by the caller). */
function stringArg(fn: string, v: Value, which?: string): string {
  if (typeof v !== 'string') throw argumentError(fn, 'a String', v, which);
  return v;
}

/** A non-negative integer argument: a start or a length. */
function countArg(fn: string, v: Value, which: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw argumentError(fn, 'an Integer', v, which);
  if (v < 0) throw argumentError(fn, 'a non-negative Integer', v, which);
  return v;
}

/** `text` from code point `start`, `length` code points long (to the end without one): charged as long as it is. */
function codePointSlice(text: string, start: number, length: number | undefined, ctx: RunContext): string {
  // Finding the offsets walks the string up to them.
  tickChars(ctx, Math.min(text.length, length === undefined ? start : start + length));
  const from = unitOffset(text, start);
  const to = length === undefined ? text.length : unitOffset(text, length, from);
  ctx.budget.chargeBytes(to - from + 2);
  return text.slice(from, to);
}


/** Functions of strings. Positions and lengths count code points, as size() does. */
export const STRING_FUNCTIONS = defineFunctions([
  ...(['toLower', 'toUpper', 'trim'] as const).map((name) =>
    unary(name, (v, ctx) => {
      if (typeof v !== 'string') throw typeError(`${name.toLowerCase()}()`, 'a string', v);
      // A new string as long as the old: charged before it is made, as `+` is.
      ctx.budget.chargeBytes(v.length + 2);
      return name === 'toLower' ? v.toLowerCase() : name === 'toUpper' ? v.toUpperCase() : v.trim();
    }),
  ),
  ...(['lTrim', 'rTrim'] as const).map((name) =>
    unary(name, (v, ctx) => {
      const s = stringArg(name, v);
      ctx.budget.chargeBytes(s.length + 2);
      return name === 'lTrim' ? s.trimStart() : s.trimEnd();
    }),
  ),
  nullIn('substring', 2, 3, ([s, start, length], ctx) =>
    codePointSlice(stringArg('substring', s!), countArg('substring', start!, 'start'), length === undefined ? undefined : countArg('substring', length, 'length'), ctx),
  ),
  nullIn('left', 2, 2, ([s, length], ctx) => codePointSlice(stringArg('left', s!), 0, countArg('left', length!, 'length'), ctx)),
  nullIn('right', 2, 2, ([s, length], ctx) => {
    const text = stringArg('right', s!);
    const n = countArg('right', length!, 'length');
    tickChars(ctx, text.length);
    const total = codePoints(text);
    if (n < total) return codePointSlice(text, total - n, undefined, ctx);
    ctx.budget.chargeBytes(text.length + 2);
    return text;
  }),
  nullIn('replace', 3, 3, ([s, search, replacement], ctx) => {
    const text = stringArg('replace', s!, 'original');
    const needle = stringArg('replace', search!, 'search');
    const repl = stringArg('replace', replacement!, 'replacement');
    const budget = ctx.budget;
    if (needle.length === 0) {
      // The empty string occurs before every character and at the end (as Java's String.replace has it).
      const points = codePoints(text);
      tickChars(ctx, text.length);
      budget.chargeBytes(text.length + (points + 1) * repl.length + 2);
      let out = repl;
      for (const ch of text) out += ch + repl;
      return out;
    }
    // Counted first, so the result is charged before it is built.
    const table = searchTableBytes(needle);
    if (table > 0) budget.chargeBytes(table);
    budget.tick((text.length + needle.length) >>> CHARS_PER_UNIT_SHIFT);
    let count = 0;
    forEachOccurrence(text, needle, () => {
      count++;
    });
    if (count === 0) return text;
    budget.chargeBytes(text.length + count * (repl.length - needle.length) + 2);
    const parts: string[] = [];
    let last = 0;
    forEachOccurrence(text, needle, (at) => {
      parts.push(text.slice(last, at));
      last = at + needle.length;
    });
    parts.push(text.slice(last));
    return parts.join(repl);
  }),
  nullIn('split', 2, 2, ([s, delimiter], ctx) => {
    const text = stringArg('split', s!, 'original');
    const delim = stringArg('split', delimiter!, 'delimiter');
    const budget = ctx.budget;
    if (delim.length === 0) {
      // Every character alone.
      tickChars(ctx, text.length);
      const points = codePoints(text);
      budget.chargeBytes(points * (8 + 3) + text.length + 2);
      return Array.from(text);
    }
    const table = searchTableBytes(delim);
    if (table > 0) budget.chargeBytes(table);
    budget.tick((text.length + delim.length) >>> CHARS_PER_UNIT_SHIFT);
    let count = 0;
    forEachOccurrence(text, delim, () => {
      count++;
    });
    // count + 1 strings (a slot and quotes each) holding what the delimiters leave of the text.
    budget.chargeBytes((count + 1) * (8 + 3) + text.length - count * delim.length + 2);
    const out: string[] = [];
    let last = 0;
    forEachOccurrence(text, delim, (at) => {
      out.push(text.slice(last, at));
      last = at + delim.length;
    });
    out.push(text.slice(last));
    return out;
  }),
]);
