import { ToolgraphError } from '../../errors/index.ts';

/** The carrier's one route. */
export const SUBSCRIBE_PATH = '/graphql/subscribe';

export interface SubscribeParams {
  readonly graph: string;
  readonly query: string;
}

function badRequest(message: string): ToolgraphError {
  return new ToolgraphError('TG_BAD_REQUEST', message);
}

/** Percent-decoding as `application/x-www-form-urlencoded` (`+` is a space), refusing malformed escapes and UTF-8. */
function decode(text: string, name: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw badRequest(`The ${name} parameter is not valid percent-encoded UTF-8.`);
  }
}

/**
 * Reads `graph` and `query` from the raw query string (the part after `?`). Any other parameter is
 * refused without its value being decoded or looked at: a bearer token in the URL (`access_token`
 * or any other name) is never accepted. Each of the two must appear exactly once.
 */
export function parseSubscribeQuery(search: string): SubscribeParams {
  let graph: string | undefined;
  let query: string | undefined;
  for (const part of search.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq === -1 ? part : part.slice(0, eq);
    if (name !== 'graph' && name !== 'query') {
      throw badRequest('The carrier accepts only the graph and query parameters; a bearer token in the URL is never accepted (send Authorization: Bearer <envelope> instead).');
    }
    const value = decode(eq === -1 ? '' : part.slice(eq + 1), name);
    if ((name === 'graph' ? graph : query) !== undefined) throw badRequest(`The ${name} parameter appears more than once.`);
    if (name === 'graph') graph = value;
    else query = value;
  }
  if (graph === undefined || graph === '') throw badRequest('The graph parameter is missing: the carrier has no default graph.');
  if (query === undefined || query === '') throw badRequest('The query parameter is missing: send the subscription text, percent-encoded.');
  return { graph, query };
}
