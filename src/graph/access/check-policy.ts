import type { ErrorObject } from 'ajv';
import type { AccessPolicy } from '../../../generated/types/access-policy.ts';
import { validateAccessPolicy } from '../../../generated/validators/access-policy.ts';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { childPointer, schemaViolations } from '../../validation/index.ts';

export type { AccessPolicy, Matcher, Operand, Predicate } from '../../../generated/types/access-policy.ts';

/** Deeper documents are refused before validation, so a hostile policy cannot exhaust the stack. */
export const MAX_POLICY_DEPTH = 48;

/** The pointer of the first value nested deeper than MAX_POLICY_DEPTH, or null (iterative: no recursion). */
function tooDeep(value: unknown): string | null {
  const stack: { value: unknown; depth: number; pointer: string }[] = [{ value, depth: 0, pointer: '' }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (typeof top.value !== 'object' || top.value === null) continue;
    if (top.depth >= MAX_POLICY_DEPTH) return top.pointer;
    for (const [key, child] of Object.entries(top.value)) {
      stack.push({ value: child, depth: top.depth + 1, pointer: childPointer(top.pointer, key) });
    }
  }
  return null;
}

/**
 * The most telling ajv error. Alternatives (oneOf) report every branch that failed, so: take the
 * deepest instance path (the branch that got furthest); there, an unknown property every failing
 * branch names is the culprit, a lone missing property is, a keyword error (length, enum, items)
 * is; when branches disagree, the value matches none of the allowed forms.
 */
function pickError(errors: readonly ErrorObject[]): { pointer: string; message: string } {
  const relevant = schemaViolations(errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf'));
  if (relevant.length === 0) return { pointer: errors[0]?.instancePath ?? '', message: errors[0]?.message ?? 'is invalid' };
  const depth = (pointer: string): number => (pointer === '' ? 0 : pointer.split('/').length);
  let path = relevant[0]!.instancePath;
  for (const v of relevant) if (depth(v.instancePath) > depth(path)) path = v.instancePath;
  const here = relevant.filter((v) => v.instancePath === path);
  const extra = new Set(here.filter((v) => v.kind === 'unknown').map((v) => v.pointer));
  const missing = new Set(here.filter((v) => v.kind === 'missing').map((v) => v.pointer));
  const others = here.filter((v) => v.kind === 'invalid' && v.keyword !== 'type');
  if (extra.size === 1) return { pointer: [...extra][0]!, message: 'is not a property this object may have' };
  if (extra.size === 0 && missing.size === 1 && others.length === 0) return { pointer: [...missing][0]!, message: 'is required' };
  if (extra.size === 0 && missing.size === 0 && others.length > 0) return { pointer: path, message: `${others[0]!.message}; got ${describeValue(others[0]!.value)}` };
  if (extra.size === 0 && missing.size === 0 && here.length === 1) return { pointer: path, message: `${here[0]!.message}; got ${describeValue(here[0]!.value)}` };
  return { pointer: path, message: `matches none of the allowed forms (docs/access.md); got ${describeValue(here[0]!.data)}` };
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
