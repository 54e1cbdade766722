import type { components } from '../../../generated/openapi/types.ts';
import { validateNativeRequest } from '../../../generated/validators/openapi.ts';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { parseRequestJson } from './request-json.ts';
import { firstViolation } from './request-violation.ts';
import { U64_MAX, invalidId, parseU64 } from './u64.ts';

type Schemas = components['schemas'];

/** The document's NativeMethod (generated), with `variables` and `params` always present: null when not sent. */
type NativeMethod =
  | { readonly GraphQl: Readonly<Required<Schemas['GraphQlMethod']['GraphQl']>> }
  | { readonly Cypher: Readonly<Required<Schemas['CypherMethod']['Cypher']>> };

/**
 * The native request of the OpenAPI document, with its id read losslessly. Integers in `params` or
 * `variables` written beyond ±(2^53−1) arrive as bigint, never rounded: the method refuses them.
 */
export interface NativeRequest {
  readonly id: bigint;
  /** How the id was sent; the response echoes it in the same form. */
  readonly idForm: 'integer' | 'string';
  readonly graph: string;
  readonly agentId: string | null;
  readonly method: NativeMethod;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a request body into a NativeRequest: depth-checked, numbers kept exact (see
 * parseRequestJson), then validated by the generated `validateNativeRequest`.
 */
export function parseNativeRequest(text: string): NativeRequest {
  const { value, idSources } = parseRequestJson(text);
  return toNativeRequest(value, isObject(value) ? idSources.get(value) : undefined);
}

/** How an id that came in is shown in a refusal: its exact source text for numbers. */
function shownId(raw: unknown, source: string | undefined): string {
  if (typeof raw === 'number') return source ?? String(raw);
  if (typeof raw === 'bigint') return raw.toString();
  if (typeof raw === 'string') return JSON.stringify(raw);
  return raw === null ? 'null' : describeValue(raw);
}

/**
 * The id, read losslessly by hand: the validator sees numbers as doubles, so it cannot tell
 * 18446744073709551616 from 2^64−1, nor `1.0` from `1`.
 */
function readId(raw: unknown, source: string | undefined): { id: bigint; idForm: 'integer' | 'string' } {
  if (typeof raw === 'string') return { id: parseU64(raw, 'id', JSON.stringify(raw)), idForm: 'string' };
  // A bigint came from an integer literal (no sign-less zeros, no fraction): only its range is left to check.
  if (typeof raw === 'bigint') return { id: raw >= 1n && raw <= U64_MAX ? raw : parseU64(raw.toString(), 'id'), idForm: 'integer' };
  if (typeof raw === 'number') {
    const exact = source ?? (Number.isSafeInteger(raw) ? String(raw) : undefined);
    // Without the source text an unsafe number has already lost digits: refuse rather than guess.
    if (exact === undefined) throw invalidId('id', `${raw} (a number above 2^53 parsed without its source text)`);
    return { id: parseU64(exact, 'id'), idForm: 'integer' };
  }
  throw invalidId('id', shownId(raw, source));
}

/**
 * Validates an already-parsed body with the generated validator (the OpenAPI NativeRequest schema)
 * and reads its id losslessly; `idSource` is the exact JSON text of a numeric id when known. A
 * refusal is TG_REQUEST_INVALID naming the field (and its JSON pointer), what was expected and what came.
 */
export function toNativeRequest(body: unknown, idSource?: string): NativeRequest {
  // The validator checks a big id as the double nearest to it; readId then checks it exactly.
  const checked = isObject(body) && typeof body['id'] === 'bigint' ? { ...body, id: Number(body['id']) } : body;
  if (!validateNativeRequest(checked)) {
    const problem = firstViolation(validateNativeRequest.errors ?? [], checked);
    if (problem.pointer === '/id') throw invalidId('id', shownId(isObject(body) ? body['id'] : undefined, idSource));
    throw new ToolgraphError('TG_REQUEST_INVALID', `${problem.field}: expected ${problem.expected}, got ${problem.got}.`, { details: { ...problem } });
  }
  const { id, idForm } = readId((body as Record<string, unknown>)['id'], idSource);
  const { method } = checked;
  return {
    id,
    idForm,
    graph: checked.graph,
    agentId: checked.agent_id ?? null,
    method: 'GraphQl' in method
      ? { GraphQl: { query: method.GraphQl.query, variables: method.GraphQl.variables ?? null } }
      : { Cypher: { query: method.Cypher.query, params: method.Cypher.params ?? null } },
  };
}
