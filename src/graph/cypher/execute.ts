import type { BatchRequest, CommitResult, GraphView, NodeRecord } from '../engine/index.ts';
import { isToolgraphError } from '../../errors/index.ts';
import type { Query } from './ast.ts';
import { checkQuery } from './check.ts';
import { runtimeError } from './cypher-error.ts';
import { runMatch, runSubquery } from './match.ts';
import { parseCypher } from './parser.ts';
import { runReturn } from './project.ts';
import type { Row, RunContext, SubqueryExpr } from './run-context.ts';
import { PendingWrites, type WriteStats } from './update.ts';
import { newMap, toJson, type NodeRef, type Value } from './values.ts';

/** What the executor needs from the engine: a live view per graph and batch commits. */
export interface CypherEngine {
  view(graph: string): GraphView;
  commit(batch: BatchRequest): Promise<CommitResult>;
}

export interface CypherResult {
  readonly columns: string[];
  /** One array per row, one JSON value per column (nodes as their properties plus `id`). */
  readonly rows: unknown[][];
  /** The graph version the result reflects: the read version, or the version the write produced. */
  readonly version: number;
  /** Present for statements with CREATE, SET, REMOVE or DELETE. */
  readonly stats?: WriteStats;
}

export interface RunOptions {
  /** Ids for nodes CREATE makes without an `id` key. Default: random UUIDs. */
  newId?: () => string;
}

export interface PreparedCypher {
  readonly query: Query;
  /** Whether the statement writes (needs a write scope). */
  readonly writes: boolean;
}

/** Parses and checks a statement without running it. */
export function prepareCypher(source: string): PreparedCypher {
  const query = parseCypher(source);
  checkQuery(query, source);
  return { query, writes: query.updating.length > 0 };
}

/** A write that lost an optimistic-concurrency race is re-run from a fresh read this many times. */
const MAX_ATTEMPTS = 3;

/** Turns request parameters (parsed JSON) into runtime values. */
export function toParams(params: Readonly<Record<string, unknown>> | null | undefined): Map<string, Value> {
  const out = new Map<string, Value>();
  if (params === null || params === undefined) return out;
  for (const [name, value] of Object.entries(params)) out.set(name, fromJson(value, `$${name}`, 0));
  return out;
}

function fromJson(value: unknown, path: string, depth: number): Value {
  if (depth > 64) throw runtimeError(`Parameter ${path} nests deeper than 64 levels.`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw runtimeError(`Parameter ${path} is not a finite number.`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item, i) => fromJson(item, `${path}[${i}]`, depth + 1));
  if (typeof value === 'object') {
    const out = newMap();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = fromJson(v, `${path}.${k}`, depth + 1);
    return out;
  }
  throw runtimeError(`Parameter ${path} is a ${typeof value}, which JSON cannot carry.`);
}

function makeContext(view: GraphView, params: ReadonlyMap<string, Value>, resolve: (ref: NodeRef) => NodeRecord | null): RunContext {
  const ctx: RunContext = {
    view,
    params,
    resolve,
    prepared: new Map(),
    subquery: (expr: SubqueryExpr, row: Row) => runSubquery(expr, [row], ctx)[0]!,
    aggregates: null,
  };
  return ctx;
}

function output(projection: { columns: string[]; rows: Value[][] }, resolve: (ref: NodeRef) => NodeRecord | null): { columns: string[]; rows: unknown[][] } {
  return { columns: projection.columns, rows: projection.rows.map((row) => row.map((v) => toJson(v, resolve))) };
}

/**
 * Runs one statement on one graph. Reads happen in one synchronous pass over the live view (one
 * version). A write statement becomes exactly one batch committed with the read version as its
 * expected version; RETURN then reads the committed state.
 */
export async function runCypher(engine: CypherEngine, graph: string, statement: string | PreparedCypher, params?: Readonly<Record<string, unknown>> | null, options: RunOptions = {}): Promise<CypherResult> {
  const prepared = typeof statement === 'string' ? prepareCypher(statement) : statement;
  const values = toParams(params);
  const { query } = prepared;
  if (!prepared.writes) return runRead(engine.view(graph), query, values);
  for (let attempt = 1; ; attempt++) {
    try {
      return await runWrite(engine, graph, query, values, options);
    } catch (error) {
      if (attempt < MAX_ATTEMPTS && isToolgraphError(error) && error.code === 'TG_VERSION_CONFLICT') continue;
      throw error;
    }
  }
}

function matchAll(query: Query, ctx: RunContext): Row[] {
  let rows: Row[] = [new Map()];
  for (const clause of query.reading) rows = runMatch(clause, rows, ctx);
  return rows;
}

function runRead(view: GraphView, query: Query, params: ReadonlyMap<string, Value>): CypherResult {
  const resolve = (ref: NodeRef): NodeRecord | null => ref.record;
  const ctx = makeContext(view, params, resolve);
  const rows = matchAll(query, ctx);
  const projection = runReturn(query.returns!, rows, ctx);
  return { ...output(projection, resolve), version: view.version };
}

async function runWrite(engine: CypherEngine, graph: string, query: Query, params: ReadonlyMap<string, Value>, options: RunOptions): Promise<CypherResult> {
  const view = engine.view(graph);
  const readVersion = view.version;
  const pending = new PendingWrites(view, options.newId);
  const ctx = makeContext(view, params, (ref) => pending.resolve(ref));
  let rows = matchAll(query, ctx);
  for (const clause of query.updating) rows = pending.run(clause, rows, ctx);
  let version = readVersion;
  if (pending.mutations.length > 0) {
    const committed = await engine.commit({ graph, expectedVersion: readVersion, mutations: pending.mutations });
    version = committed.version;
  }
  if (query.returns === null) return { columns: [], rows: [], version, stats: pending.stats };
  // RETURN reads what was committed: nodes by id from the live view (null once deleted).
  const after = engine.view(graph);
  const resolve = (ref: NodeRef): NodeRecord | null => after.node(ref.id) ?? null;
  const post = makeContext(after, params, resolve);
  const projection = runReturn(query.returns, rows, post);
  return { ...output(projection, resolve), version, stats: pending.stats };
}
