import { describeValue } from '../../errors/index.ts';
import { graphqlError } from './graphql-errors.ts';

const KNOWN = new Set(['query', 'operationName', 'variables', 'extensions', 'documentId']);

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(message: string) {
  return graphqlError('TG_BAD_REQUEST', message, { http: { status: 400 } });
}

/**
 * The shape of the GraphQL-over-HTTP request parameters, before APQ and trusted documents look at
 * them: query (when given) a string, operationName a string, variables and extensions objects,
 * nothing else. Whether there is a document at all is known only after them (`requireQuery`).
 */
export function checkParams(params: Record<string, unknown>): void {
  for (const key of Object.keys(params)) {
    if (!KNOWN.has(key) && params[key] !== null && params[key] !== undefined) {
      throw bad(`Unexpected parameter ${describeValue(key)}; a GraphQL request has query, operationName, variables, extensions (and documentId).`);
    }
  }
  const { query, operationName, variables, extensions, documentId } = params;
  if (query !== undefined && query !== null && typeof query !== 'string') throw bad(`Expected "query" to be a string; got ${describeValue(query)}.`);
  if (documentId !== undefined && documentId !== null && typeof documentId !== 'string') throw bad(`Expected "documentId" to be a string; got ${describeValue(documentId)}.`);
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw bad(`Expected "operationName" to be a string or null; got ${describeValue(operationName)}.`);
  }
  if (variables !== undefined && variables !== null && !isObject(variables)) throw bad(`Expected "variables" to be an object or null; got ${describeValue(variables)}.`);
  if (extensions !== undefined && extensions !== null && !isObject(extensions)) throw bad(`Expected "extensions" to be an object or null; got ${describeValue(extensions)}.`);
}

/** After APQ and trusted documents: the request must now hold a document. */
export function requireQuery(params: Record<string, unknown>): void {
  if (typeof params['query'] !== 'string') throw bad('Must provide query string.');
}
