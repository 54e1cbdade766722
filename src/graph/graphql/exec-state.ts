import type { FragmentDefinitionNode, GraphQLError } from 'graphql';
import type { GraphView } from '../engine/index.ts';
import type { GraphSchema } from './graph-schema.ts';
import type { ReadRecorder } from './read-recorder.ts';

/**
 * The execution budget seam. The executor charges what it is about to build *before* building it:
 * the rows of a scan, an expansion or an entity lookup once their count is known (from the
 * adjacency lists' sizes, before the level's array is allocated), and a lower bound of the JSON
 * bytes of each level's objects; it ticks through long loops so the clock is read, yields between
 * slices of a large level when the slice is spent (`yieldDue`, `pause`), and reports the
 * serialised result's size. A budget throws a ToolgraphError to stop the request. The default meter
 * counts nothing and never stops. `src/graph/budget` (row, result-size and time caps shared with
 * Cypher) plugs in here.
 */
export interface ExecutionMeter {
  /** `count` rows are about to be produced at `level` (0: a root field's scan or lookup). */
  rows(count: number, level: number): void;
  /** At least `bytes` more bytes of response JSON are about to be built (cumulative). */
  bytes(bytes: number): void;
  /** `units` of work were done (rows shaped): lets the budget read its clock in long loops. */
  tick(units: number): void;
  /** How many more rows the budget allows (Infinity: no cap): a scan asks the engine for at most one more. */
  rowsLeft(): number;
  /** The response body is `bytes` long (called once, before it is sent). */
  resultBytes(bytes: number): void;
  /** True when the current time slice is spent: the executor yields at its next safe point (work.ts). */
  readonly yieldDue: boolean;
  /** Lets the event loop serve other requests, then starts a new slice (and checks the time budget). */
  pause(): Promise<void>;
  /** Bytes of response JSON charged so far (`bytes`), when the meter counts them. */
  readonly chargedBytes?: number;
}

export const UNMETERED: ExecutionMeter = Object.freeze({
  rows() {}, bytes() {}, tick() {}, rowsLeft: () => Infinity, resultBytes() {}, yieldDue: false, pause: () => Promise.resolve(),
});

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
   * Most items a list field without first/limit (a connection without first/last) may return
   * (TOOLGRAPH_GRAPHQL_LIST_LIMIT); more is refused, see list-limit.ts.
   */
  readonly listLimit: number;
  /**
   * Set when graphql-js walks the shaped values (operations that mix introspection with label
   * fields): the type name of every shaped node object (its label, after a namespace's prefix), for abstract-type resolution.
   */
  readonly labels: WeakMap<object, string> | null;
  /** A subscription's evaluation records what it reads here (the carrier re-runs it only when a batch touches that); null for queries. */
  readonly reads: ReadRecorder | null;
}

/** A response path, built lazily: only errors need it. */
export type PathFn = () => (string | number)[];
