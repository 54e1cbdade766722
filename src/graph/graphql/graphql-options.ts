import type { ResolvedValues } from '../../config/index.ts';

/** The static limits, checked before anything executes. */
export interface GraphqlLimits {
  readonly maxQueryBytes: number;
  readonly maxDepth: number;
  readonly maxCost: number;
  readonly maxAliases: number;
  readonly maxDirectives: number;
  readonly maxTokens: number;
  readonly maxFields: number;
  /** What cost analysis prices an edge field without first/limit at (items per parent). */
  readonly defaultPage: number;
  /** Most items a list field without a page may return (a root list without one is priced at this). */
  readonly listLimit: number;
  /** Most representations one `_entities` call may carry. */
  readonly maxRepresentations: number;
}

export interface GraphqlOptions {
  readonly limits: GraphqlLimits;
  readonly introspection: boolean;
  readonly persistedOnly: boolean;
  /** Trusted documents: sha256 (hex) → document text. */
  readonly trustedDocuments: ReadonlyMap<string, string>;
  readonly apqMaxEntries: number;
  /** Largest request body (JSON with the query, variables and extensions). */
  readonly bodyLimit: number;
}

/** 1 MiB, as POST /dispatch: room for large variables, while the document itself has its own cap. */
const GRAPHQL_BODY_LIMIT = 1024 * 1024;

type GraphqlSettings = Pick<ResolvedValues,
  'graphqlIntrospection' | 'graphqlPersistedOnly' | 'graphqlApqMaxEntries' | 'graphqlMaxQueryBytes' | 'graphqlMaxDepth'
  | 'graphqlMaxCost' | 'graphqlMaxAliases' | 'graphqlMaxDirectives' | 'graphqlMaxTokens' | 'graphqlMaxFields'
  | 'graphqlDefaultPage' | 'graphqlListLimit' | 'graphqlMaxRepresentations'>;

export function graphqlOptionsFrom(values: GraphqlSettings, trustedDocuments: ReadonlyMap<string, string>): GraphqlOptions {
  return {
    limits: {
      maxQueryBytes: values.graphqlMaxQueryBytes,
      maxDepth: values.graphqlMaxDepth,
      maxCost: values.graphqlMaxCost,
      maxAliases: values.graphqlMaxAliases,
      maxDirectives: values.graphqlMaxDirectives,
      maxTokens: values.graphqlMaxTokens,
      maxFields: values.graphqlMaxFields,
      defaultPage: values.graphqlDefaultPage,
      listLimit: values.graphqlListLimit,
      maxRepresentations: values.graphqlMaxRepresentations,
    },
    introspection: values.graphqlIntrospection,
    persistedOnly: values.graphqlPersistedOnly,
    trustedDocuments,
    apqMaxEntries: values.graphqlApqMaxEntries,
    bodyLimit: GRAPHQL_BODY_LIMIT,
  };
}
