import { ToolgraphError } from '../../errors/index.ts';
import { invalidId, parseU64 } from './u64.ts';

export type NativeMethod =
  | { readonly GraphQl: { readonly query: string; readonly variables: Readonly<Record<string, unknown>> | null } }
  | { readonly Cypher: { readonly query: string; readonly params: Readonly<Record<string, unknown>> | null } };

/** The native request of the OpenAPI document, with its id read losslessly. */
export interface NativeRequest {
  readonly id: bigint;
  /** How the id was sent; the response echoes it in the same form. */
  readonly idForm: 'integer' | 'string';
  readonly graph: string;
  readonly agentId: string | null;
  readonly method: NativeMethod;
}

function invalid(field: string, expected: string, got: unknown): ToolgraphError {
  const shown = describe(got);
  return new ToolgraphError('TG_REQUEST_INVALID', `${field}: expected ${expected}, got ${shown}.`, { details: { field, expected, got: shown } });
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return `${typeof value} ${String(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`${where}${key}`, `no such field (allowed: ${allowed.join(', ')})`, value[key]);
  }
}

/**
 * Parses a request body into a NativeRequest. The top-level `id` is read from its JSON source text
 * (Node 22's JSON.parse reviver context), so ids above 2^53 keep every digit.
 */
export function parseNativeRequest(text: string): NativeRequest {
  const idSources = new WeakMap<object, string>();
  let body: unknown;
  try {
    body = JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
      if (key === 'id' && typeof value === 'number' && context?.source !== undefined) idSources.set(this, context.source);
      return value;
    });
  } catch (error) {
    throw new ToolgraphError('TG_REQUEST_INVALID', `The body is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return toNativeRequest(body, isObject(body) ? idSources.get(body) : undefined);
}

/** Validates an already-parsed body; `idSource` is the exact JSON text of a numeric id when known. */
export function toNativeRequest(body: unknown, idSource?: string): NativeRequest {
  if (!isObject(body)) throw invalid('body', 'a NativeRequest object', body);
  onlyKeys(body, ['id', 'graph', 'agent_id', 'method'], '');
  const rawId = body['id'];
  let id: bigint;
  let idForm: 'integer' | 'string';
  if (typeof rawId === 'number') {
    const source = idSource ?? (Number.isSafeInteger(rawId) ? String(rawId) : undefined);
    // Without the source text an unsafe number has already lost digits: refuse rather than guess.
    if (source === undefined) throw invalidId('id', `${rawId} (a number above 2^53 parsed without its source text)`);
    id = parseU64(source, 'id');
    idForm = 'integer';
  } else if (typeof rawId === 'bigint') {
    id = parseU64(rawId.toString(), 'id');
    idForm = 'integer';
  } else if (typeof rawId === 'string') {
    id = parseU64(rawId, 'id', JSON.stringify(rawId));
    idForm = 'string';
  } else throw invalidId('id', describe(rawId));

  const graph = body['graph'];
  if (typeof graph !== 'string' || graph.length === 0) throw invalid('graph', 'a non-empty string', graph);
  const agent = body['agent_id'];
  if (agent !== undefined && agent !== null && typeof agent !== 'string') throw invalid('agent_id', 'a string or null', agent);

  const method = body['method'];
  if (!isObject(method)) throw invalid('method', 'an object with exactly one of GraphQl or Cypher', method);
  const names = Object.keys(method);
  if (names.length !== 1 || (names[0] !== 'GraphQl' && names[0] !== 'Cypher')) {
    throw invalid('method', 'an object with exactly one of GraphQl or Cypher', names.length === 0 ? 'an empty object' : `keys ${names.join(', ')}`);
  }
  const name = names[0];
  const inner = method[name];
  const where = `method.${name}`;
  if (!isObject(inner)) throw invalid(where, 'an object with query', inner);
  const extra = name === 'GraphQl' ? 'variables' : 'params';
  onlyKeys(inner, ['query', extra], `${where}.`);
  const query = inner['query'];
  if (typeof query !== 'string') throw invalid(`${where}.query`, 'a string', query);
  const values = inner[extra];
  if (values !== undefined && values !== null && !isObject(values)) throw invalid(`${where}.${extra}`, 'an object or null', values);
  const args = (values ?? null) as Record<string, unknown> | null;
  return {
    id,
    idForm,
    graph,
    agentId: (agent ?? null) as string | null,
    method: name === 'GraphQl' ? { GraphQl: { query, variables: args } } : { Cypher: { query, params: args } },
  };
}
