// With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
const LONE_SURROGATE = /\p{Surrogate}/u;

/** Whether `text` is well-formed Unicode: no lone surrogate, which UTF-8 and RFC 8785 JSON cannot carry. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The UTF-16 offset of the first lone surrogate, or -1. */
export function loneSurrogateAt(text: string): number {
  const match = LONE_SURROGATE.exec(text);
  return match === null ? -1 : match.index;
}
