/**
 * The GraphQL → Cypher explanation without the GraphQL server (`toolgraph explain` imports this
 * instead of index.ts, which loads Yoga and its plugins).
 */
export { explainGraphql, explanationText } from './explain-query.ts';
export type { GraphqlExplanation } from './explain-query.ts';
