// Runs one TCK scenario on a fresh in-process graph through the real Cypher path: `prepareCypher`
// (parse and checks: "compile time") then `runCypher` (the executor `/dispatch` runs: "runtime").
import { isToolgraphError } from '../../src/errors/index.ts';
import { DEFAULT_BUDGET_LIMITS } from '../../src/graph/budget/index.ts';
import { prepareCypher, procedureRegistry, runCypher, type CypherResult, type Procedure, type RunOptions } from '../../src/graph/cypher/index.ts';
import type { PreparedCypher } from '../../src/graph/cypher/execute.ts';
import { GraphEngine } from '../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../src/graph/persist/index.ts';
import { compareRows, graphState, sideEffects, type GraphState, type SideEffects } from './compare.ts';
import type { Scenario, Step } from './gherkin.ts';
import { declaresProcedure, tckProcedure } from './procedure.ts';
import { parseTckValue, tckToJson } from './values.ts';

export type Status = 'passed' | 'failed' | 'outside' | 'other';

export interface Outcome {
  readonly status: Status;
  /** Why it did not pass (empty when it passed). */
  readonly reason: string;
  /** For `other`: the construct refused (TG_CYPHER_UNSUPPORTED's details.construct), or the crash. For `outside`: what the graph model excludes. */
  readonly construct?: string;
}

/**
 * Each statement's own execution budget: the server's time default, and a stall limit well above
 * its 150 ms, so a busy machine (a GC pause, other processes) cannot fail a scenario. A statement
 * stopped by its budget is `other`, never an expected runtime error.
 */
const STATEMENT_LIMITS = { ...DEFAULT_BUDGET_LIMITS, timeoutMs: 5_000, maxStallMs: 2_000 };
/** The whole scenario's wall-clock budget. */
export const SCENARIO_TIMEOUT_MS = 20_000;

class Refusal extends Error {
  readonly outcome: Outcome;
  constructor(outcome: Outcome) {
    super(outcome.reason);
    this.outcome = outcome;
  }
}

type Phase = 'compile time' | 'runtime';

interface QueryRun {
  readonly result: CypherResult | null;
  readonly error: { readonly phase: Phase; readonly code: string; readonly message: string } | null;
  readonly before: GraphState;
  readonly after: GraphState;
}

/** What a TG_CYPHER_UNSUPPORTED refusal means for the scenario. */
function refusal(error: unknown): Outcome | null {
  if (!isToolgraphError(error) || error.code !== 'TG_CYPHER_UNSUPPORTED') return null;
  const details = error.details ?? {};
  const outside = details['outsideModel'];
  if (typeof outside === 'string') return { status: 'outside', reason: error.message, construct: outside };
  const construct = typeof details['construct'] === 'string' ? details['construct'] : error.message;
  return { status: 'other', reason: error.message, construct };
}

/** Whether text parses and checks, and if not, whether it is refused as a construct the engine lacks. */
function prepareStatic(text: string): Outcome | null {
  try {
    prepareCypher(text);
    return null;
  } catch (error) {
    return refusal(error);
  }
}

const queryText = (s: Step) => (/^executing (control )?query:$/.test(s.text) ? s.docString : null);

class ScenarioRun {
  #counter = 0;
  readonly #procedures: Procedure[] = [];
  readonly options: RunOptions = {
    newId: () => `tck-${++this.#counter}`,
    limits: STATEMENT_LIMITS,
  };
  params: Record<string, unknown> = {};
  last: QueryRun | null = null;

  readonly engine: GraphEngine;
  readonly scenario: Scenario;

  constructor(engine: GraphEngine, scenario: Scenario) {
    this.engine = engine;
    this.scenario = scenario;
  }

  /** Registers a test procedure: statements from now on may call it (with the built-ins). */
  declare(procedure: Procedure): void {
    this.#procedures.push(procedure);
    this.options.procedures = procedureRegistry(this.#procedures);
  }

  state(): Promise<GraphState> {
    return this.engine.read('g', (view) => graphState(view));
  }

  async query(text: string): Promise<QueryRun> {
    const before = await this.state();
    let prepared: PreparedCypher;
    try {
      prepared = prepareCypher(text, this.options);
    } catch (error) {
      const refused = refusal(error);
      if (refused !== null) throw new Refusal(refused);
      if (!isToolgraphError(error)) throw new Refusal({ status: 'other', reason: `crash at compile time: ${String(error)}`, construct: 'a crash' });
      return { result: null, error: { phase: 'compile time', code: error.code, message: error.message }, before, after: before };
    }
    try {
      const result = await runCypher(this.engine, 'g', prepared, this.params, this.options);
      return { result, error: null, before, after: await this.state() };
    } catch (error) {
      const refused = refusal(error);
      if (refused !== null) throw new Refusal(refused);
      if (!isToolgraphError(error)) throw new Refusal({ status: 'other', reason: `crash at runtime: ${String(error)}`, construct: 'a crash' });
      if (error.code === 'TG_INTERNAL') throw new Refusal({ status: 'other', reason: `internal error: ${error.message}`, construct: 'a crash' });
      if (error.code === 'TG_QUERY_BUDGET_EXCEEDED') throw new Refusal({ status: 'other', reason: error.message, construct: 'the execution budget' });
      return { result: null, error: { phase: 'runtime', code: error.code, message: error.message }, before, after: await this.state() };
    }
  }
}

function failed(reason: string): Outcome {
  return { status: 'failed', reason };
}

/** The check a Then/And step makes on the last query; null when it holds, else why not. */
function check(step: Step, run: QueryRun): string | null {
  const text = step.text;
  const error = /^an? (\w+) should be raised at (compile time|runtime|any time): (.*)$/.exec(text);
  if (error !== null) {
    const [, kind, phase] = error;
    if (run.error === null) return `expected a ${kind} at ${phase}; the query succeeded`;
    if (phase !== 'any time' && phase !== run.error.phase) return `expected a ${kind} at ${phase}; got ${run.error.code} at ${run.error.phase}: ${run.error.message}`;
    return null;
  }
  if (run.error !== null) return `${run.error.code} at ${run.error.phase}: ${run.error.message}`;
  const result = run.result!;
  if (text === 'the result should be empty') {
    return result.rows.length === 0 ? null : `expected no rows, got ${result.rows.length}`;
  }
  const rows = /^the result should be(?:, in (any order|order))?(?: ?\(ignoring element order for lists\))?:$/.exec(text);
  if (rows !== null) {
    const [header = [], ...body] = step.table ?? [];
    return compareRows({
      columns: header,
      rows: body.map((r) => r.map(parseTckValue)),
      ordered: rows[1] === 'order',
      unorderedLists: text.includes('ignoring element order for lists'),
    }, result.columns, result.rows, run.after);
  }
  const effects = sideEffects(run.before, run.after);
  if (/^no side effects#?$/.test(text)) return describeEffects(effects, {});
  if (text === 'the side effects should be:') {
    const want: Record<string, number> = {};
    for (const [name, count] of step.table ?? []) want[name!] = Number(count);
    return describeEffects(effects, want);
  }
  throw new Refusal({ status: 'other', reason: `the runner does not know the step "${text}"`, construct: 'an unknown TCK step' });
}

function describeEffects(got: SideEffects, want: Readonly<Record<string, number>>): string | null {
  const wrong = Object.entries(got).filter(([k, n]) => n !== (want[k] ?? 0));
  for (const k of Object.keys(want)) if (!(k in got)) wrong.push([k, Number.NaN]);
  if (wrong.length === 0) return null;
  return `side effects ${wrong.map(([k, n]) => `${k} ${n} (expected ${want[k] ?? 0})`).join(', ')}`;
}

/**
 * A refusal of the graph model counts apart only when it is all the scenario needs beyond what runs:
 * if another of its statements is refused as a construct the engine lacks, it is `other`.
 */
function needsOnlyTheModel(scenario: Scenario, outcome: Outcome): Outcome {
  if (outcome.status !== 'outside') return outcome;
  for (const step of scenario.steps) {
    const text = step.text === 'having executed:' ? step.docString : queryText(step);
    if (text === null) continue;
    const refused = prepareStatic(text);
    if (refused !== null && refused.status === 'other') return { ...refused, reason: `${refused.reason} (it also needs ${outcome.construct})` };
  }
  return outcome;
}

async function runSteps(run: ScenarioRun): Promise<Outcome> {
  for (const step of run.scenario.steps) {
    const text = step.text;
    if (text === 'an empty graph' || text === 'any graph') continue;
    if (declaresProcedure(text)) {
      run.declare(tckProcedure(text, step.table));
      continue;
    }
    if (text === 'parameters are:') {
      for (const [name, value] of step.table ?? []) run.params[name!] = tckToJson(parseTckValue(value!));
      continue;
    }
    if (text === 'having executed:') {
      const setup = await run.query(step.docString ?? '');
      if (setup.error !== null) return failed(`setup query failed: ${setup.error.code}: ${setup.error.message}`);
      continue;
    }
    const query = queryText(step);
    if (query !== null) {
      run.last = await run.query(query);
      continue;
    }
    if (run.last === null) return { status: 'other', reason: `a check before any query: "${text}"`, construct: 'an unknown TCK step' };
    const wrong = check(step, run.last);
    if (wrong !== null) return failed(wrong);
  }
  if (run.last === null) return { status: 'other', reason: 'the scenario runs no query', construct: 'an unknown TCK step' };
  return { status: 'passed', reason: '' };
}

/** Runs one scenario on its own fresh engine, within SCENARIO_TIMEOUT_MS. */
export async function runScenario(scenario: Scenario): Promise<Outcome> {
  const engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  let timer: NodeJS.Timeout | undefined;
  try {
    await engine.createGraph('g');
    const run = new ScenarioRun(engine, scenario);
    const timeout = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'other', reason: `timed out after ${SCENARIO_TIMEOUT_MS} ms`, construct: 'a timeout' }), SCENARIO_TIMEOUT_MS);
    });
    const outcome = await Promise.race([runSteps(run), timeout]);
    return outcome;
  } catch (error) {
    if (error instanceof Refusal) return needsOnlyTheModel(scenario, error.outcome);
    return { status: 'other', reason: `runner crash: ${error instanceof Error ? error.message : String(error)}`, construct: 'a crash' };
  } finally {
    clearTimeout(timer);
    await engine.close();
  }
}
