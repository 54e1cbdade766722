import type { ErrorObject } from 'ajv';
import type { AccessPolicy } from '../../../generated/types/access-policy.ts';
import { validateAccessPolicy } from '../../../generated/validators/access-policy.ts';
import { ToolgraphError, describeValue } from '../../errors/index.ts';

export type { AccessPolicy, Literal, Matcher, Operand, Predicate } from '../../../generated/types/access-policy.ts';

/** Deeper documents are refused before validation, so a hostile policy cannot exhaust the stack. */
export const MAX_POLICY_DEPTH = 48;

function encode(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The pointer of the first value nested deeper than MAX_POLICY_DEPTH, or null (iterative: no recursion). */
function tooDeep(value: unknown): string | null {
  const stack: { value: unknown; depth: number; pointer: string }[] = [{ value, depth: 0, pointer: '' }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (typeof top.value !== 'object' || top.value === null) continue;
    if (top.depth >= MAX_POLICY_DEPTH) return top.pointer;
    for (const [key, child] of Object.entries(top.value)) {
      stack.push({ value: child, depth: top.depth + 1, pointer: `${top.pointer}/${encode(key)}` });
    }
  }
  return null;
}

/**
 * The most telling ajv error: the deepest pointer (oneOf reports every branch that failed; the
 * branch that got furthest names the real problem), then a missing or unknown property over a
 * type mismatch.
 */
function pickError(errors: readonly ErrorObject[]): { pointer: string; message: string } {
  let best: ErrorObject | undefined;
  const depth = (e: ErrorObject): number => pointerOf(e).split('/').length;
  for (const error of errors) {
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf') continue;
    if (best === undefined || depth(error) > depth(best)) best = error;
  }
  best ??= errors[0]!;
  return { pointer: pointerOf(best), message: messageOf(best) };
}

function pointerOf(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return `${error.instancePath}/${encode(String((error.params as { additionalProperty: string }).additionalProperty))}`;
  if (error.keyword === 'required') return `${error.instancePath}/${encode(String((error.params as { missingProperty: string }).missingProperty))}`;
  return error.instancePath;
}

function messageOf(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return 'is not a property this object may have';
  if (error.keyword === 'required') return 'is required';
  return `${error.message ?? error.keyword}; got ${describeValue(error.data)}`;
}

/**
 * Returns `value` typed as an AccessPolicy (the generated ajv validator of
 * specs/access-policy.schema.json), or throws TG_ACCESS_POLICY_INVALID naming the JSON pointer of
 * the problem in the message and as `details.pointer`.
 */
export function checkAccessPolicy(value: unknown): AccessPolicy {
  const deep = tooDeep(value);
  if (deep !== null) {
    throw new ToolgraphError('TG_ACCESS_POLICY_INVALID', `The access policy is invalid at ${deep}: it nests deeper than ${MAX_POLICY_DEPTH} levels.`, { details: { pointer: deep } });
  }
  if (validateAccessPolicy(value)) return value;
  const { pointer, message } = pickError(validateAccessPolicy.errors ?? []);
  throw new ToolgraphError('TG_ACCESS_POLICY_INVALID', `The access policy is invalid at ${pointer === '' ? '(root)' : pointer}: ${message}.`, { details: { pointer } });
}
