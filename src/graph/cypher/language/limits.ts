import { ToolgraphError } from '../../../errors/index.ts';

/** The spec's query limits: text at most 32 KiB, syntax nesting at most 64 levels. */
export const MAX_QUERY_BYTES = 32 * 1024;
export const MAX_NESTING = 64;

export function tooLong(bytes: number): ToolgraphError {
  return new ToolgraphError('TG_QUERY_TOO_COMPLEX', `Cypher query text is ${bytes} bytes; at most ${MAX_QUERY_BYTES} bytes (32 KiB) are accepted.`, {
    details: { limit: MAX_QUERY_BYTES, got: bytes },
  });
}

export function tooDeep(line: number, column: number): ToolgraphError {
  return new ToolgraphError('TG_QUERY_TOO_COMPLEX', `Cypher query nests deeper than ${MAX_NESTING} levels at line ${line}, column ${column}.`, {
    details: { limit: MAX_NESTING, line, column },
  });
}
