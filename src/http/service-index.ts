import type { HttpService } from './http-service.ts';
import type { ResponseBody } from './openapi-types.ts';

export const SERVICE_INDEX_PATH = '/';

/** What each service is for, by its `--only` name; a service not listed here shows its name alone. */
const ABOUT: Readonly<Record<string, string>> = {
  graphql: 'GraphQL over HTTP, one endpoint per graph: POST or GET a query; with introspection on, open it in a browser for the GraphiQL console.',
  graph: 'The native dispatch: POST a native request {id, graph, method}; a graph\'s access policy and namespace live under /graphs/{graph}/.',
  tools: 'The MCP tool server: MCP Streamable HTTP at /mcp, and POST /mcp/tools/call {name, arguments} for REST clients.',
  catalogue: 'The schema catalogue: GET /schemas/search?q=... finds a tool schema\'s manifest; /schemas/{sha256} and its fragments fetch it.',
  metrics: 'Prometheus metrics.',
  consent: 'Where a three-legged agent\'s consent link sends the caller\'s browser.',
  oauth: 'The sign-in proxy\'s OAuth authorization server metadata (MCP clients sign in through it).',
  metadata: 'The protected resource metadata (RFC 9728): which identity provider issues the tokens this server accepts.',
};

/**
 * The answer to `GET /`: the routes of the services this process runs, the probes and where the
 * documentation is, so that the root URL a person opens first tells them where to go.
 */
export function serviceIndex(services: readonly HttpService[]): ResponseBody<'serviceIndex', 200> {
  return {
    name: 'toolgraph',
    message: 'This is toolgraph. The routes it serves are listed below; every route, its errors and its TG_ codes are described by the OpenAPI document, and the README is the guide.',
    routes: services.map((service) => ({ path: service.entryPath, service: service.name, about: ABOUT[service.name] ?? service.name })),
    probes: { readiness: '/healthz', liveness: '/livez' },
    docs: { openapi: 'specs/tool-server.openapi.yaml in the toolgraph repository', guide: 'README.md and docs/ in the toolgraph repository' },
  };
}
