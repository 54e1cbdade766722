/**
 * The GraphQL → Cypher explanation without the GraphQL server (`toolgraph explain` imports this
 * instead of index.ts, which loads Yoga and its plugins).
 */
export { explainGraphql } from './explain-query.ts';
