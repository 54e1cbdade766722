import { valueAtPointer } from '../../validation/index.ts';

/** The value at a local reference (`#/a/b`) inside `root`, or undefined when it names nothing. */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer !== '' && !pointer.startsWith('/')) return undefined;
  return valueAtPointer(root, pointer);
}
