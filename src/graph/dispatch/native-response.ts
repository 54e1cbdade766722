import canonicalize from 'canonicalize';
import type { ErrorBody } from '../../errors/index.ts';
import { RawJson } from './raw-json.ts';

/** The error of a NativeResponse: the document's ErrorDetail, as every ErrorBody carries it. */
export type NativeErrorDetail = Readonly<ErrorBody['error']>;

/** The answer to a NativeRequest: its id (in the form it was sent) with either a result or an error. */
export type NativeResponse =
  | { readonly id: bigint; readonly idForm: 'integer' | 'string'; readonly result: unknown }
  | { readonly id: bigint; readonly idForm: 'integer' | 'string'; readonly error: NativeErrorDetail };

/**
 * Writes a NativeResponse as JSON text. The id is written digit for digit from the bigint (never
 * through a double); the result or error is RFC 8785 canonical JSON (sorted keys, shortest numbers),
 * so equal results are byte-equal whichever surface produced them. A RawJson result (the Cypher
 * executor's canonical text, or the GraphQL body) is already written and is copied as is.
 */
export function serializeNativeResponse(response: NativeResponse): string {
  const digits = response.id.toString();
  const id = response.idForm === 'string' ? `"${digits}"` : digits;
  if ('error' in response) return `{"error":${canonicalize(response.error) ?? 'null'},"id":${id}}`;
  if (response.result instanceof RawJson) return `{"id":${id},"result":${response.result.text}}`;
  return `{"id":${id},"result":${canonicalize(response.result) ?? 'null'}}`;
}
