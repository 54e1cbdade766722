import { ToolgraphError } from './toolgraph-error.ts';

/**
 * The refusal of text that should be JSON and is not (`what`: "The body", "--params"): 400
 * TG_BAD_REQUEST, the same wherever JSON is read. Details carry where the parser stopped, not its
 * message: V8 quotes the text in some messages, and the text may hold a secret.
 */
export function notJsonError(what: string, cause: unknown): ToolgraphError {
  const position = cause instanceof Error ? /at position (\d+)/.exec(cause.message)?.[1] : undefined;
  return new ToolgraphError('TG_BAD_REQUEST', `${what} is not valid JSON.`, {
    cause,
    ...(position === undefined ? {} : { details: { position: Number(position) } }),
  });
}
