import { isToolgraphError } from '../../errors/index.ts';

/**
 * The `error.type` of a span that ended with `thrown`: a ToolgraphError's code, a GraphQL error's
 * `extensions.code`, else TG_INTERNAL. Never the message: messages may quote a graph name or a value.
 */
export function errorTypeOf(thrown: unknown): string {
  if (isToolgraphError(thrown)) return thrown.code;
  const code = (thrown as { extensions?: { code?: unknown } } | null)?.extensions?.code;
  return typeof code === 'string' ? code : 'TG_INTERNAL';
}
