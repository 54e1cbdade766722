/** What `toolgraph --help` says each command does; the command's own registration uses the same text. */
export const COMMAND_DESCRIPTIONS = {
  serve: 'Start the HTTP services of this process on one host:port, each under its own paths',
  config: 'Print every resolved setting with its source (flag, env, config, default); secrets redacted',
  introspect: 'Print the subgraph SDL introspected from a graph (labels → types, properties → fields, edges → object fields)',
  graph: 'Create, list, drop, import and export graphs in the configured store',
  access: 'Read or replace a graph\'s access policy (who may read and write it, and which rows each reader sees; docs/access.md)',
  namespace: 'Read, set or clear a graph\'s federation namespace (a prefix on its GraphQL names so graphs compose; docs/graphql.md)',
  cypher: 'Run a Cypher statement against a graph and print the native response as JSON',
  explain: 'Print the Cypher equivalent to a GraphQL query and the plan it runs with (scans, expansions, filters)',
  schema: 'Search the schema catalogue and fetch verified schemas',
  tools: 'The MCP tool server (Area B)',
  auth: 'Sign downstream agents in (three-legged OAuth, device flow)',
  envelope: 'Sign subscription carrier requests and make signer keys',
} as const;

export type CommandName = keyof typeof COMMAND_DESCRIPTIONS;
