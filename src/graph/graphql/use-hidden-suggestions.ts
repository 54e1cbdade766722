import type { Plugin } from '@envelop/core';
import { GraphQLError } from 'graphql';

/** What a hidden hint reads as (graphql-armor's mask, which this plugin replaces). */
const SUGGESTION_MASK = '[Suggestion hidden]';

/**
 * graphql-js ends validation messages with hints built from the schema: `Did you mean "name"?`,
 * `Did you mean to use an inline fragment on "Document"?` (the types of a union or interface that
 * have the field), `Did you mean the enum value "X"?`. Each is masked, whatever words come between
 * "Did you mean" and the quoted names (graphql-armor's pattern wants a quote right after "mean", so
 * the inline-fragment hint got through and listed every label with the field).
 */
function hideSuggestions(message: string): string {
  return message.replace(/Did you mean [^?]*\?/g, SUGGESTION_MASK);
}

function masked(error: unknown): unknown {
  if (!(error instanceof GraphQLError)) return error;
  const message = hideSuggestions(error.message);
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/** With introspection off, validation errors name nothing of the schema the document did not name. */
export function useHiddenSuggestions(): Plugin {
  return {
    onValidate() {
      return ({ valid, result, setResult }) => {
        if (!valid) setResult(result.map(masked));
      };
    },
  };
}
