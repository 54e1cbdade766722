/**
 * The procedure call clause: `CALL ns.name(args) [YIELD …]` (parsing here; the registry check is
 * procedure-resolve.ts, the run runtime/procedure-call.ts). `CALL {` is a subquery, not this.
 */
import type { Expr, ProcedureCallClause, ReadingClause, YieldItem } from './ast.ts';
import { syntaxProblem } from './cypher-error.ts';
import type { Token } from './lexer.ts';

/** The parser's token helpers the clause needs (parser.ts hands over its own). */
export interface ClauseReader {
  source(): string;
  peek(k?: number): Token;
  advance(): Token;
  isSymbol(text: string, k?: number): boolean;
  isKeyword(word: string, k?: number): boolean;
  acceptSymbol(text: string): boolean;
  acceptKeyword(word: string): boolean;
  expectSymbol(text: string, expected?: string): Token;
  parseName(what: string): string;
  parseVariable(): string;
  parseExpression(): Expr;
}

/** Whether the next tokens start a procedure call (`CALL` and a name, not `CALL {`). */
export function isProcedureCallStart(reader: ClauseReader): boolean {
  if (!reader.isKeyword('CALL')) return false;
  const next = reader.peek(1);
  return next.kind === 'ident' || next.kind === 'quoted';
}

/**
 * `CALL ns.name[(args)] [YIELD * | YIELD field [AS variable], … [WHERE expr]]`. `first`: the clause
 * starts the statement; with nothing after it, the call is the whole statement (standalone), the
 * one place `YIELD *` and arguments taken from the parameters (no parentheses) are allowed.
 */
export function parseProcedureCall(reader: ClauseReader, first: boolean): ProcedureCallClause {
  const start = reader.advance();
  const parts = [reader.parseName('a procedure name after CALL')];
  while (reader.acceptSymbol('.')) parts.push(reader.parseName('a name after . in the procedure name'));
  const name = parts.join('.');
  let args: Expr[] | null = null;
  if (reader.acceptSymbol('(')) {
    args = [];
    if (!reader.isSymbol(')')) {
      do args.push(reader.parseExpression());
      while (reader.acceptSymbol(','));
    }
    reader.expectSymbol(')', `',' or ')' to close the arguments of ${name}`);
  }
  let yields: YieldItem[] | null = null;
  let yieldStar = false;
  let where: Expr | null = null;
  let starAt = -1;
  if (reader.isKeyword('YIELD')) {
    reader.advance();
    if (reader.isSymbol('*')) {
      starAt = reader.advance().offset;
      yieldStar = true;
    } else {
      yields = [];
      do {
        const at = reader.peek().offset;
        const field = reader.parseName(`an output name of ${name} after YIELD`);
        const variable = reader.acceptKeyword('AS') ? reader.parseVariable() : field;
        yields.push({ field, variable, offset: at });
      } while (reader.acceptSymbol(','));
    }
    if (reader.acceptKeyword('WHERE')) where = reader.parseExpression();
  }
  const standalone = first && (reader.peek().kind === 'eof' || reader.isSymbol(';'));
  if (yieldStar && !standalone) {
    throw syntaxProblem(reader.source(), starAt, `YIELD * is only allowed when CALL ${name} is the whole statement; name the outputs to bind (YIELD a, b AS c).`);
  }
  return { kind: 'procedureCall', name, args, yields, yieldStar, where, standalone, offset: start.offset };
}

/** Whether a part's reading clauses are one standalone call: a statement without RETURN. */
export function isStandaloneCall(reading: readonly ReadingClause[]): boolean {
  return reading.length === 1 && reading[0]!.kind === 'procedureCall' && reading[0]!.standalone;
}

/** The variables a call binds (its YIELD items; resolution fills those of a standalone call). */
export function yieldedVariables(clause: ProcedureCallClause): string[] {
  return clause.yields === null ? [] : clause.yields.map((item) => item.variable);
}

/** The expressions a call evaluates: its arguments, then its WHERE. */
export function callExpressions(clause: ProcedureCallClause): Expr[] {
  const exprs = clause.args === null ? [] : [...clause.args];
  if (clause.where !== null) exprs.push(clause.where);
  return exprs;
}

/** The scope a call is checked in (check.ts hands over its own). */
interface CallScope {
  bound(name: string): boolean;
  bind(name: string): void;
  /** Checks an expression in the scope as it is now. */
  expr(expr: Expr): void;
  fail(offset: number, problem: string): never;
}

/**
 * The scope rules of a call: its arguments read the variables before it; each YIELD binds a new
 * variable (one already bound, or bound twice by the same YIELD, is an error: rename it with AS);
 * its WHERE reads them all.
 */
export function checkProcedureCall(clause: ProcedureCallClause, scope: CallScope): void {
  for (const arg of clause.args ?? []) scope.expr(arg);
  const here = new Set<string>();
  for (const item of clause.yields ?? []) {
    if (scope.bound(item.variable) || here.has(item.variable)) {
      const rename = item.field === item.variable ? `${item.field} AS another name` : `${item.field} AS a name not bound yet`;
      scope.fail(item.offset, `variable \`${item.variable}\` is already bound, so YIELD cannot bind it again; rename the output (YIELD ${rename}).`);
    }
    here.add(item.variable);
  }
  for (const name of here) scope.bind(name);
  if (clause.where !== null) scope.expr(clause.where);
}
