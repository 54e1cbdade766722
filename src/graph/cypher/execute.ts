import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import { DEFAULT_BUDGET_LIMITS, QueryBudget, type BudgetLimits } from '../budget/index.ts';
import { DEFAULT_WRITE_LIMITS, WriteMeter, type GraphView, type NodeRecord, type TransactCommit, type WriteLimits } from '../engine/index.ts';
import type { Query, SubqueryCallClause } from './language/ast.ts';
import { bodyGraphRead, bodyTransactions, bodyWrites, subqueryCallsOf } from './language/subquery-call.ts';
import { checkQuery } from './language/check.ts';
import { runtimeError, unsupported } from './language/cypher-error.ts';
import { emptyRow, prepareSubqueries, runSubquery } from './runtime/match.ts';
import { evaluate } from './runtime/evaluate.ts';
import { parseCypher } from './language/parser.ts';
import { resolveProcedureCalls } from './language/procedure-resolve.ts';
import { BUILTIN_REGISTRY, type ProcedureRegistry } from './runtime/procedures/registry.ts';
import { rowsForTransactions, runBody, runStatement } from './runtime/pipeline.ts';
import { ResultJson } from './runtime/result-json.ts';
import type { Row, RunContext, SubqueryExpr } from './runtime/run-context.ts';
import { layoutOf, partsOf, type SlotLayout } from './plan/slots.ts';
import { statementCache } from './plan/statement-cache.ts';
import { PendingWrites, type WriteStats } from './runtime/update.ts';
import { NodeRef, newMap, type Value } from './runtime/values.ts';
import { isWellFormed } from './language/well-formed.ts';

/**
 * What the executor needs from the engine: reads against one consistent version (they may yield the
 * event loop), and read-plan-commit steps run in the graph's write queue (see GraphEngine).
 */
export interface CypherEngine {
  read<T>(graph: string, work: (view: GraphView) => Promise<T>): Promise<T>;
  transact<T>(graph: string, work: (view: GraphView, commit: TransactCommit) => Promise<T>): Promise<T>;
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
  /** The execution budget of each statement. Default: DEFAULT_BUDGET_LIMITS (the settings' defaults). */
  limits?: BudgetLimits;
  /**
   * The caps on a write statement's batch, counted as its update clauses run (the engine checks its
   * own caps again at commit). Default: DEFAULT_WRITE_LIMITS (the settings' defaults).
   */
  writeLimits?: WriteLimits;
  /** Told after each batch of `CALL { … } IN TRANSACTIONS` commits. */
  onBatch?: (progress: BatchProgress) => void;
  /**
   * The procedures statements may CALL: `procedureRegistry([...])`, the built-ins plus an embedder's
   * own. Default: the built-ins. A statement given as text is prepared against it; one prepared
   * already must have been prepared against the same registry.
   */
  procedures?: ProcedureRegistry;
}

/** What preparing a statement depends on besides its text. */
export type PrepareOptions = Pick<RunOptions, 'procedures'>;

export interface PreparedCypher {
  readonly query: Query;
  /** Whether the statement ends with `CALL { … } IN TRANSACTIONS` (it commits batch by batch). */
  readonly batched: boolean;
  /** Whether the statement writes (needs a write scope). */
  readonly writes: boolean;
  readonly layout: SlotLayout;
  /** The registry its procedure calls were resolved in. */
  readonly procedures: ProcedureRegistry;
}

/** Prepared statements by text: at most 1000 of them and 4 Mi characters of text in all. */
const prepared = statementCache<PreparedCypher>(1000, 4 * 1024 * 1024);

/**
 * Parses and checks a statement without running it, its procedure calls resolved in `options.procedures`
 * (default: the built-ins); a text seen before (with the same registry) comes from a bounded cache.
 */
export function prepareCypher(source: string, options: PrepareOptions = {}): PreparedCypher {
  const procedures = options.procedures ?? BUILTIN_REGISTRY;
  const cached = prepared.get(source);
  if (cached !== undefined && cached.procedures === procedures) return cached;
  const query = resolveProcedureCalls(parseCypher(source), procedures, source);
  checkQuery(query, source);
  const batched = checkInTransactions(query, source);
  const statement: PreparedCypher = Object.freeze({ query, batched, writes: batched || checkReadsAfterWrites(query, source), layout: layoutOf(query), procedures });
  prepared.set(source, statement);
  return statement;
}

/**
 * Whether the statement writes. A MATCH after an update (in a later part, past WITH) would have to
 * read the statement's own pending writes, which matching does not see yet: it is refused rather
 * than answered from the graph as it was.
 */
function checkReadsAfterWrites(query: Query, source: string): boolean {
  let writes = false;
  for (let statement: Query | null = query; statement !== null; statement = statement.union?.query ?? null) {
    let written = false;
    for (let part: Query | null = statement; part !== null; part = part.next) {
      for (const clause of part.reading) {
        if (written) {
          // A procedure reads the graph as a MATCH does (db.labels() would miss the new labels).
          const read = clause.kind === 'subqueryCall' ? bodyGraphRead(clause.body) : clause.kind === 'unwind' ? null : clause;
          if (read !== null) throw unsupported(source, read.offset, `${read.kind === 'match' ? 'MATCH' : 'a procedure call'} after an update in the same statement (reading the statement's own writes)`);
        }
        if (clause.kind === 'subqueryCall') written = checkSubqueryCallWrites(clause, source) || written;
      }
      if (written) writes = true;
      if (part.updating.length > 0) written = writes = true;
    }
  }
  return writes;
}

/**
 * Whether a `CALL { … }` body writes. Its runs follow one another, each after the writes of the runs
 * before it, so a body that writes may not match the graph (matching does not see the pending
 * writes); `CALL { … } IN TRANSACTIONS` inside a body is refused (it commits on its own).
 */
function checkSubqueryCallWrites(clause: SubqueryCallClause, source: string): boolean {
  const nested = bodyTransactions(clause.body);
  if (nested !== null) throw unsupported(source, nested, 'CALL { … } IN TRANSACTIONS inside a CALL { … } subquery');
  if (!bodyWrites(clause.body)) return false;
  const read = bodyGraphRead(clause.body);
  if (read !== null) throw unsupported(source, read.offset, `${read.kind === 'match' ? 'MATCH' : 'a procedure call'} in a CALL { … } subquery that updates the graph (each run would read the writes of the runs before it)`);
  return true;
}

/**
 * Whether the statement ends with `CALL { … } IN TRANSACTIONS`. Such a statement reads its rows first
 * and then commits one batch per n rows, so nothing outside the subquery may write, and it stands
 * alone (no UNION).
 */
function checkInTransactions(query: Query, source: string): boolean {
  // The clause ends its statement (the parser sees to that), so it is in the last part or nowhere.
  let found: Query = query;
  while (found.next !== null) found = found.next;
  if (found.transactions === null) return false;
  for (let part: Query | null = query; part !== null; part = part.next) {
    if (part.updating.length > 0) throw unsupported(source, part.updating[0]!.offset, 'an update outside the CALL { … } IN TRANSACTIONS subquery of its statement');
    const writing = subqueryCallsOf(part).find((call) => bodyWrites(call.body));
    if (writing !== undefined) throw unsupported(source, writing.offset, 'an update outside the CALL { … } IN TRANSACTIONS subquery of its statement');
  }
  if (query.union !== null) throw unsupported(source, query.union.offset, 'UNION with CALL { … } IN TRANSACTIONS');
  for (const part of partsOf(found.transactions.body)) {
    if (part.transactions !== null) throw unsupported(source, part.transactions.offset, 'CALL { … } IN TRANSACTIONS nested in another');
    for (const call of subqueryCallsOf(part)) checkSubqueryCallWrites(call, source);
  }
  return true;
}

/** Progress of `CALL { … } IN TRANSACTIONS`, told after each batch commits. */
interface BatchProgress {
  readonly committedBatches: number;
  readonly committedRows: number;
  readonly totalRows: number;
  /** The graph version the last committed batch produced. */
  readonly version: number;
}

/**
 * A write loses an optimistic-concurrency race only to another instance sharing the storage (writes
 * of this process queue in the engine); it is re-run from a fresh read this many times in all.
 */
const MAX_ATTEMPTS = 3;

/**
 * Turns request parameters (parsed JSON) into runtime values. Refused with TG_VALUE_INVALID naming
 * where: ill-formed Unicode (a lone surrogate) in any key or string, which no JSON answer could
 * carry back, and integers beyond ±(2^53−1) (bigint from a lossless parse), which would be rounded.
 */
function toParams(params: Readonly<Record<string, unknown>> | null | undefined): Map<string, Value> {
  const out = new Map<string, Value>();
  if (params === null || params === undefined) return out;
  for (const [name, value] of Object.entries(params)) {
    if (!isWellFormed(name)) throw illFormed(`$${JSON.stringify(name)}`, `The parameter name ${JSON.stringify(name)}`);
    out.set(name, fromJson(value, `$${name}`, 0));
  }
  return out;
}

function illFormed(where: string, what: string): ToolgraphError {
  return new ToolgraphError('TG_VALUE_INVALID', `${what} is not well-formed Unicode (it holds a lone surrogate); send text as valid UTF-16/UTF-8.`, {
    details: { where },
  });
}

function fromJson(value: unknown, path: string, depth: number): Value {
  if (depth > 64) throw runtimeError(`Parameter ${path} nests deeper than 64 levels.`);
  if (typeof value === 'string') {
    if (!isWellFormed(value)) throw illFormed(path, `Parameter ${path}`);
    return value;
  }
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw runtimeError(`Parameter ${path} is not a finite number.`);
    return value;
  }
  if (typeof value === 'bigint') {
    throw new ToolgraphError('TG_VALUE_INVALID', `Parameter ${path} is the integer ${value}, outside ±9007199254740991: numbers are 64-bit floats here, so it would lose digits. Send it as a string.`, {
      details: { where: path, got: value.toString() },
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => fromJson(item, `${path}[${i}]`, depth + 1));
  if (typeof value === 'object') {
    const out = newMap();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!isWellFormed(k)) throw illFormed(`${path}.${JSON.stringify(k)}`, `A key of parameter ${path} (${JSON.stringify(k)})`);
      out[k] = fromJson(v, `${path}.${k}`, depth + 1);
    }
    return out;
  }
  throw runtimeError(`Parameter ${path} is a ${typeof value}, which JSON cannot carry.`);
}

function makeContext(view: GraphView, params: ReadonlyMap<string, Value>, statement: PreparedCypher, budget: QueryBudget, resolve: (ref: NodeRef) => NodeRecord | null): RunContext {
  const ctx: RunContext = {
    view,
    params,
    layout: statement.layout,
    budget,
    resolve,
    prepared: new Map(),
    subquery: (expr: SubqueryExpr, row: Row) => runSubquery(expr, [row], ctx)[0]!,
    prepare: (exprs, rows) => prepareSubqueries(exprs, rows, ctx),
    aggregates: null,
  };
  return ctx;
}

/**
 * Runs one statement on one graph and answers its result as RFC 8785 canonical JSON text
 * (`{"columns", "rows", "stats"?, "version"}`), written as rows are produced. Every statement runs
 * under an execution budget (rows, result bytes, time) and yields the event loop as it goes.
 * A read runs against one version of the graph. A write statement becomes exactly one batch: its
 * read, plan and commit run in the graph's write queue, so writers of this process queue instead of
 * conflicting; RETURN reads the statement's own writes and is written before the commit (a RETURN
 * refused by the budget leaves the write uncommitted).
 */
export async function runCypherJson(engine: CypherEngine, graph: string, statement: string | PreparedCypher, params?: Readonly<Record<string, unknown>> | null, options: RunOptions = {}): Promise<string> {
  const prepared = typeof statement === 'string' ? prepareCypher(statement, options) : statement;
  if (options.procedures !== undefined && prepared.procedures !== options.procedures) {
    throw new Error('runCypher: the statement was prepared against another procedure registry than RunOptions.procedures; prepare it with the same options.');
  }
  const values = toParams(params);
  const limits = options.limits ?? DEFAULT_BUDGET_LIMITS;
  if (!prepared.writes) return engine.read(graph, (view) => runRead(view, prepared, values, limits));
  if (prepared.batched) return runInTransactions(engine, graph, prepared, values, limits, options);
  return withRetries(() => engine.transact(graph, (view, commit) => runWrite(view, commit, prepared, values, limits, options.writeLimits ?? DEFAULT_WRITE_LIMITS, options.newId)));
}

/** Runs a write, again from a fresh read when another instance took the version first (up to MAX_ATTEMPTS in all). */
async function withRetries<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt < MAX_ATTEMPTS && isToolgraphError(error) && error.code === 'TG_VERSION_CONFLICT') {
        // Give the follower a moment to apply the other instance's batch before reading again.
        await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt * (0.5 + Math.random())));
        continue;
      }
      throw error;
    }
  }
}

/** As `runCypherJson`, with the result parsed. */
export async function runCypher(engine: CypherEngine, graph: string, statement: string | PreparedCypher, params?: Readonly<Record<string, unknown>> | null, options: RunOptions = {}): Promise<CypherResult> {
  return JSON.parse(await runCypherJson(engine, graph, statement, params, options)) as CypherResult;
}

async function runRead(view: GraphView, statement: PreparedCypher, params: ReadonlyMap<string, Value>, limits: BudgetLimits): Promise<string> {
  const budget = new QueryBudget(limits);
  const resolve = (ref: NodeRef): NodeRecord | null => ref.record;
  const ctx = makeContext(view, params, statement, budget, resolve);
  const out = new ResultJson(resolve, budget);
  const columns = await runStatement(statement.query, ctx, null, out);
  return out.finish(columns, view.version);
}

async function runWrite(
  view: GraphView, commit: TransactCommit, statement: PreparedCypher, params: ReadonlyMap<string, Value>, limits: BudgetLimits,
  writeLimits: WriteLimits, newId: (() => string) | undefined,
): Promise<string> {
  const { query } = statement;
  const budget = new QueryBudget(limits);
  const pending = new PendingWrites(view, new WriteMeter(writeLimits), newId);
  const ctx = makeContext(view, params, statement, budget, (ref) => pending.resolve(ref));
  // RETURN is projected and written before the commit, from the statement's own writes (what the
  // commit will hold: nodes by their pending state, null once deleted), so a RETURN past the budget is
  // refused while nothing is logged: a refused write changes nothing.
  const out = new ResultJson((ref) => pending.resolve(ref), budget);
  const columns = await runStatement(query, ctx, pending, out);
  out.checkFinish(columns, pending.stats);
  // A write past its time budget is refused here, before anything is logged: it changes nothing.
  budget.checkTime();
  let version = view.version;
  // No expected version: inside the queue, the plan was made on the version it commits on.
  if (pending.mutations.length > 0) version = (await commit({ mutations: pending.mutations })).version;
  return out.finish(columns, version, pending.stats);
}

/** Rows per batch of `CALL { … } IN TRANSACTIONS` without `OF n ROWS` (Neo4j's default too). */
const DEFAULT_BATCH_ROWS = 1000;

/**
 * `… CALL { body } IN TRANSACTIONS OF n ROWS`: reads the rows once (one version, under the budget),
 * then runs the body over n rows at a time, each batch in its own turn of the write queue with its own
 * budget and under the write caps, committing once (one version each). A batch refused stops the
 * statement: the batches before it stay committed, and the error says how far it got.
 */
async function runInTransactions(engine: CypherEngine, graph: string, statement: PreparedCypher, params: ReadonlyMap<string, Value>, limits: BudgetLimits, options: RunOptions): Promise<string> {
  const { rows, clause, size, version: readVersion } = await engine.read(graph, async (view) => {
    const ctx = makeContext(view, params, statement, new QueryBudget(limits), (ref) => ref.record);
    const read = await rowsForTransactions(statement.query, ctx);
    let rowsPerBatch = DEFAULT_BATCH_ROWS;
    if (read.clause.rows !== null) {
      const value = evaluate(read.clause.rows, emptyRow(ctx), ctx);
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
        throw runtimeError(`IN TRANSACTIONS OF n ROWS needs a positive integer, got ${value === null ? 'null' : String(value)}.`);
      }
      rowsPerBatch = value;
    }
    return { ...read, size: rowsPerBatch, version: view.version };
  });
  const stats: WriteStats = { nodesCreated: 0, nodesDeleted: 0, relationshipsCreated: 0, relationshipsDeleted: 0, propertiesSet: 0 };
  let version = readVersion;
  let batches = 0;
  let committedRows = 0;
  const writeLimits = options.writeLimits ?? DEFAULT_WRITE_LIMITS;
  for (let start = 0; start < rows.length; start += size) {
    const batch = rows.slice(start, start + size);
    try {
      const done = await withRetries(() => engine.transact(graph, async (view, commit) => {
        const budget = new QueryBudget(limits);
        const pending = new PendingWrites(view, new WriteMeter(writeLimits), options.newId);
        const ctx = makeContext(view, params, statement, budget, (ref) => pending.resolve(ref));
        // Nodes as this batch's version has them: one a batch before deleted is null here.
        await runBody(clause.body, batch.map((row) => refresh(row, view)), ctx, pending);
        budget.checkTime();
        if (pending.mutations.length === 0) return { version: view.version, stats: pending.stats };
        return { version: (await commit({ mutations: pending.mutations })).version, stats: pending.stats };
      }));
      version = done.version;
      for (const key of Object.keys(stats) as (keyof WriteStats)[]) stats[key] += done.stats[key];
    } catch (error) {
      if (!isToolgraphError(error)) throw error;
      const message = `${error.message} CALL { … } IN TRANSACTIONS stopped at batch ${batches + 1} of ${Math.ceil(rows.length / size)}: `
        + (batches === 0 ? 'no batch was committed, so nothing changed.' : `the ${batches} batch${batches === 1 ? '' : 'es'} before it (${committedRows} of ${rows.length} rows, up to version ${version}) stay committed; this batch and the ones after it changed nothing.`);
      throw new ToolgraphError(error.code, message, {
        status: error.status,
        details: { ...(error.details ?? {}), committedBatches: batches, committedRows, totalRows: rows.length, version },
      });
    }
    batches++;
    committedRows += batch.length;
    options.onBatch?.({ committedBatches: batches, committedRows, totalRows: rows.length, version });
  }
  return `{"columns":[],"rows":[],"stats":{"nodesCreated":${stats.nodesCreated},"nodesDeleted":${stats.nodesDeleted},"propertiesSet":${stats.propertiesSet},`
    + `"relationshipsCreated":${stats.relationshipsCreated},"relationshipsDeleted":${stats.relationshipsDeleted},"transactions":${batches}},"version":${version}}`;
}

/** A row with its nodes as `view` has them (null for a node gone since the rows were read). */
function refresh(row: Row, view: GraphView): Row {
  return row.map((value) => {
    if (!(value instanceof NodeRef)) return value;
    const record = view.node(value.id);
    return record === undefined ? null : new NodeRef(record);
  });
}
