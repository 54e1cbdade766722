import type { FragmentDefinitionNode, GraphQLError } from 'graphql';
import type { GraphView } from '../engine/index.ts';
import type { GraphSchema } from './graph-schema.ts';

/**
 * The execution budget seam. The executor reports every row it produces (per scan, expansion or
 * entity lookup, with its level below the root) and the size of the serialised result; a budget
 * throws a ToolgraphError to stop the request. The default meter counts nothing and never stops.
 * `src/graph/budget` (row, result-size and time caps shared with Cypher) plugs in here.
 */
export interface ExecutionMeter {
  /** `count` rows were produced at `level` (0: a root field's scan or lookup). */
  rows(count: number, level: number): void;
  /** The response body is `bytes` long (called once, before it is sent). */
  resultBytes(bytes: number): void;
}

export const UNMETERED: ExecutionMeter = Object.freeze({ rows() {}, resultBytes() {} });

/** Everything one operation's execution reads: one schema, one view, its variables and fragments. */
export interface ExecState {
  readonly graphSchema: GraphSchema;
  readonly view: GraphView;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  /** Field errors that did not stop the operation (nullable fields set to null). */
  readonly errors: GraphQLError[];
  readonly meter: ExecutionMeter;
  /**
   * Set when graphql-js walks the shaped values (operations that mix introspection with label
   * fields): the label of every shaped node object, for abstract-type resolution.
   */
  readonly labels: WeakMap<object, string> | null;
}

/** A response path, built lazily: only errors need it. */
export type PathFn = () => (string | number)[];
