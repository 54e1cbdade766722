import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * One HTTP service of the process (catalogue, graph, tool server). The host routes a request to the
 * service whose prefix is the longest match of its path, so every service shares one port.
 */
export interface HttpService {
  /** Short name used by `toolgraph serve --only` and in the start-up lines. */
  readonly name: string;
  /** Path prefixes this service owns, e.g. `/schemas`. A prefix matches itself and anything under `prefix/`. */
  readonly prefixes: readonly string[];
  /** The path printed at start-up as the service's entry point, e.g. `/graphql`. */
  readonly entryPath: string;
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
  close?(): Promise<void>;
}
