import type { Expr, Pattern, Query, ReturnClause, SetItem, UpdatingClause, WithClause } from './ast.ts';
import { syntaxProblem, unsupported } from './cypher-error.ts';
import { forEachOperand } from './expr-operands.ts';
import { checkProcedureCall } from './procedure-call.ts';
import { checkSubqueryCall, type ScopeKind } from './subquery-check.ts';
import { importsVariables } from './subquery-call.ts';
import { functionSpec } from '../runtime/functions.ts';

/** `unknown`: a comprehension's, quantifier's or reduce's local variable, whose items may be of any kind. */
/**
 * The names `RETURN *` / `WITH *` project, by clause, in code-point order: what is in scope there, so
 * the columns are the same whether or not any row arrives.
 */
export const STAR_NAMES = new WeakMap<ReturnClause | WithClause, readonly string[]>();

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Kind = ScopeKind;

/**
 * Scope rules checked before anything runs, so an error does not depend on the data: every
 * variable is defined before use, a variable keeps one kind, and CREATE makes new nodes with a label.
 */
export function checkQuery(query: Query, source: string, outer: ReadonlyMap<string, Kind> = new Map(), subquery = false): ReadonlyMap<string, Kind> | null {
  let returned: ReadonlyMap<string, Kind> | null = null;
  const fail = (offset: number, problem: string): never => {
    throw syntaxProblem(source, offset, problem);
  };

  const declare = (target: Map<string, Kind>, name: string, kind: Kind, offset: number): void => {
    const existing = target.get(name);
    if (existing !== undefined && existing !== kind && existing !== 'unknown') fail(offset, `variable \`${name}\` is already a ${existing}, so it cannot also be a ${kind}.`);
    target.set(name, kind);
  };

  const checkExpr = (expr: Expr, names: ReadonlyMap<string, Kind>): void => {
    if (expr.kind === 'and' || expr.kind === 'or' || expr.kind === 'xor') for (const operand of expr.operands) checkBooleanOperand(operand, expr.kind.toUpperCase(), source);
    if (expr.kind === 'not') checkBooleanOperand(expr.operand, 'NOT', source);
    checkPathUse(expr, names, source);
    checkLiteralArgument(expr, source);
    switch (expr.kind) {
      case 'variable':
        if (!names.has(expr.name)) fail(expr.offset, `variable \`${expr.name}\` is not defined.`);
        return;
      case 'mapProjection':
        if (!names.has(expr.variable)) fail(expr.offset, `variable \`${expr.variable}\` is not defined.`);
        for (const item of expr.items) {
          if (item.kind === 'literalEntry') checkExpr(item.value, names);
          if (item.kind === 'variableSelector' && !names.has(item.name)) fail(expr.offset, `variable \`${item.name}\` is not defined.`);
        }
        return;
      case 'patternComprehension': {
        matchOnly(expr.pattern, 'a pattern comprehension');
        const inner = new Map(names);
        bindPattern(expr.pattern, inner, names);
        if (expr.where !== null) checkExpr(expr.where, inner);
        checkExpr(expr.projection, inner);
        return;
      }
      case 'patternPredicate': {
        matchOnly(expr.pattern, 'a pattern predicate');
        const inner = new Map(names);
        bindPattern(expr.pattern, inner, names);
        return;
      }
      case 'existsSubquery':
      case 'countSubquery': {
        const inner = new Map(names);
        for (const pattern of expr.patterns) matchOnly(pattern, 'EXISTS { } or COUNT { }');
        for (const pattern of expr.patterns) bindPattern(pattern, inner, names);
        if (expr.where !== null) checkExpr(expr.where, inner);
        for (const item of expr.returns) checkExpr(item, inner);
        return;
      }
      // The list (and reduce's first value) in the enclosing scope; the body with its locals, which
      // shadow outer names there and are unknown outside.
      case 'listComprehension':
      case 'quantifier': {
        checkExpr(expr.list, names);
        const inner = new Map(names).set(expr.variable, 'unknown');
        if (expr.where !== null) checkExpr(expr.where, inner);
        if (expr.kind === 'listComprehension' && expr.projection !== null) checkExpr(expr.projection, inner);
        return;
      }
      case 'reduce': {
        checkExpr(expr.init, names);
        checkExpr(expr.list, names);
        checkExpr(expr.body, new Map(names).set(expr.accumulator, 'unknown').set(expr.variable, 'unknown'));
        return;
      }
      default:
        forEachOperand(expr, (operand) => checkExpr(operand, names));
    }
  };

  /** Binds a pattern's variables into `target`; property maps may only read `outer` (the scope before the pattern). */
  const bindPattern = (pattern: Pattern, target: Map<string, Kind>, outer: ReadonlyMap<string, Kind>): void => {
    const nodes = [pattern.start, ...pattern.steps.map((s) => s.node)];
    for (const node of nodes) {
      if (node.properties !== null) checkExpr(node.properties, outer);
      if (node.variable !== null) declare(target, node.variable, 'node', node.offset);
    }
    // A variable-length relationship's variable holds the list of its relationships.
    for (const step of pattern.steps) if (step.rel.variable !== null) declare(target, step.rel.variable, step.rel.length ? 'value' : 'rel', step.rel.offset);
    bindPath(pattern, target, outer);
  };

  /** shortestPath() and allShortestPaths() are patterns of MATCH alone (not of CREATE, MERGE or a subquery). */
  const matchOnly = (pattern: Pattern, where: string): void => {
    if (pattern.shortest !== undefined) throw unsupported(source, pattern.offset, `${pattern.shortest === 'one' ? 'shortestPath' : 'allShortestPaths'}() in ${where} (it is a pattern of MATCH)`);
  };

  /** A named path's variable is new: a path is made by its pattern, never matched against a bound value. */
  const bindPath = (pattern: Pattern, target: Map<string, Kind>, outer: ReadonlyMap<string, Kind>): void => {
    if (pattern.path === undefined) return;
    if (outer.has(pattern.path) || target.has(pattern.path)) fail(pattern.offset, `variable \`${pattern.path}\` is already bound, so it cannot name a path.`);
    target.set(pattern.path, 'path');
  };

  const checkSetItems = (items: readonly SetItem[], names: ReadonlyMap<string, Kind>): void => {
    for (const item of items) {
      if (!names.has(item.variable)) fail(item.offset, `variable \`${item.variable}\` is not defined.`);
      checkExpr(item.value, names);
    }
  };

  /** Binds what CREATE (or MERGE, `merge` set) makes: new nodes need a label; bound ones take none. */
  const bindCreated = (pattern: Pattern, scope: Map<string, Kind>, clause: 'CREATE' | 'MERGE'): void => {
    matchOnly(pattern, clause);
    const nodes = [pattern.start, ...pattern.steps.map((s) => s.node)];
    const before = new Map(scope);
    if (pattern.steps.length === 0 && pattern.start.variable !== null && before.has(pattern.start.variable)) {
      fail(pattern.start.offset, `variable \`${pattern.start.variable}\` is already bound, so ${clause} (${pattern.start.variable}) would ${clause === 'CREATE' ? 'create' : 'merge'} nothing new.`);
    }
    for (const node of nodes) {
      const bound = node.variable !== null && before.has(node.variable);
      if (bound && (node.label !== null || node.properties !== null)) {
        fail(node.offset, `variable \`${node.variable}\` is already bound, so ${clause} cannot give it a label or properties.`);
      }
      if (!bound && node.label === null) throw unsupported(source, node.offset, `${clause} of a node with no label (a new node needs a label, like (n:Person))`, 'a node without a label');
      if (node.properties !== null) checkExpr(node.properties, before);
      if (node.variable !== null) declare(scope, node.variable, 'node', node.offset);
    }
    for (const step of pattern.steps) {
      if (step.rel.length) throw unsupported(source, step.rel.offset, `${clause} of a variable-length relationship (it creates exactly one relationship per step)`);
      if (step.rel.variable !== null) {
        if (before.has(step.rel.variable)) fail(step.rel.offset, `variable \`${step.rel.variable}\` is already bound; ${clause} needs a new relationship variable.`);
        declare(scope, step.rel.variable, 'rel', step.rel.offset);
      }
    }
    bindPath(pattern, scope, before);
  };

  const checkUpdates = (clauses: readonly UpdatingClause[], scope: Map<string, Kind>): void => {
    for (const clause of clauses) {
      switch (clause.kind) {
        case 'create':
          for (const pattern of clause.patterns) bindCreated(pattern, scope, 'CREATE');
          break;
        case 'merge':
          bindCreated(clause.pattern, scope, 'MERGE');
          checkSetItems(clause.onCreate, scope);
          checkSetItems(clause.onMatch, scope);
          break;
        case 'set':
          checkSetItems(clause.items, scope);
          break;
        case 'remove':
          for (const item of clause.items) if (!scope.has(item.variable)) fail(item.offset, `variable \`${item.variable}\` is not defined.`);
          break;
        case 'delete':
          for (const target of clause.targets) checkExpr(target, scope);
          break;
        case 'foreach': {
          checkExpr(clause.list, scope);
          const inner = new Map(scope);
          inner.set(clause.variable, 'value');
          checkUpdates(clause.updates, inner);
          break;
        }
      }
    }
  };

  /** RETURN's or WITH's items, ORDER BY, SKIP, LIMIT (and WITH's WHERE); answers the names they bind. */
  const checkProjection = (clause: ReturnClause | WithClause, scope: ReadonlyMap<string, Kind>): Map<string, Kind> => {
    const word = clause.kind === 'with' ? 'WITH' : 'RETURN';
    if (clause.star && scope.size === 0) fail(clause.offset, `${word} * needs at least one variable in scope.`);
    for (const item of clause.items) checkExpr(item.expr, scope);
    const projected = new Map<string, Kind>();
    if (clause.star) {
      for (const [name, kind] of scope) projected.set(name, kind);
      STAR_NAMES.set(clause, [...scope.keys()].sort(compareCodePoints));
    }
    for (const item of clause.items) {
      const kind = item.expr.kind === 'variable' ? (scope.get(item.expr.name) ?? 'value') : 'value';
      projected.set(item.name, kind);
    }
    const withAliases = new Map(scope);
    for (const [name, kind] of projected) withAliases.set(name, kind);
    for (const sort of clause.orderBy) checkExpr(sort.expr, withAliases);
    if (!clause.items.some((item) => aggregates(item.expr))) {
      const sort = clause.orderBy.find((s) => aggregates(s.expr));
      if (sort !== undefined) fail(sort.expr.offset, `ORDER BY cannot aggregate when ${word} does not; aggregate in ${word} and sort by its alias.`);
    }
    for (const [what, expr] of [['SKIP', clause.skip], ['LIMIT', clause.limit]] as const) {
      if (expr === null) continue;
      checkExpr(expr, new Map());
      const value = expr.kind === 'literal' ? expr.value : expr.kind === 'negate' && expr.operand.kind === 'literal' && typeof expr.operand.value === 'number' ? -expr.operand.value : undefined;
      if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)) {
        fail(expr.offset, `${what} needs a non-negative integer, got ${JSON.stringify(value)}.`);
      }
    }
    if (clause.kind === 'with' && clause.where !== null) checkExpr(clause.where, withAliases);
    return projected;
  };

  const columnsOf = (part: Query): string[] | null => {
    let last = part;
    while (last.next !== null) last = last.next;
    const ret = last.returns;
    return ret === null || ret.star ? null : ret.items.map((i) => i.name);
  };

  for (let statement: Query | null = query; statement !== null; statement = statement.union?.query ?? null) {
    // A CALL subquery's body starts from the variables of the statement around it (a CALL { … }
    // branch only when it imports them with its first WITH).
    let scope = new Map<string, Kind>(subquery && !importsVariables(statement) ? [] : outer);
    for (let part: Query | null = statement; part !== null; part = part.next) {
      for (const clause of part.reading) {
        if (clause.kind === 'unwind') {
          checkExpr(clause.list, scope);
          declare(scope, clause.variable, 'value', clause.offset);
          continue;
        }
        if (clause.kind === 'procedureCall') {
          const names = scope;
          checkProcedureCall(clause, { bound: (name) => names.has(name), bind: (name) => names.set(name, 'value'), expr: (e) => checkExpr(e, names), fail });
          continue;
        }
        if (clause.kind === 'subqueryCall') {
          checkSubqueryCall(clause, scope, source, (inner, body) => checkQuery(body, source, inner, true));
          continue;
        }
        const before = new Map(scope);
        for (const pattern of clause.patterns) bindPattern(pattern, scope, before);
        if (clause.where !== null) checkExpr(clause.where, scope);
      }
      checkUpdates(part.updating, scope);
      if (part.transactions !== null) {
        if (part.transactions.rows !== null) checkExpr(part.transactions.rows, new Map());
        checkQuery(part.transactions.body, source, scope);
      }
      if (part.with !== null) scope = checkProjection(part.with, scope);
      else if (part.returns !== null) {
        const projected = checkProjection(part.returns, scope);
        returned ??= projected;
      }
    }
    const union = statement.union;
    if (union !== null) {
      const left = columnsOf(statement);
      const right = columnsOf(union.query);
      if (left === null || right === null || left.length !== right.length || left.some((c, i) => c !== right[i])) {
        fail(union.offset, 'the statements UNION joins must return the same columns, in the same order (RETURN * is not allowed there).');
      }
      if (union.query.union !== null && union.query.union.all !== union.all) fail(union.query.union.offset, 'UNION and UNION ALL cannot be mixed in one statement.');
    }
  }
  return returned;
}

/** What a literal is, when it can never be a boolean (a number, string, list or map written as such). */
function literalKind(expr: Expr): string | null {
  if (expr.kind === 'list') return 'List';
  if (expr.kind === 'map') return 'Map';
  if (expr.kind !== 'literal' || expr.value === null || typeof expr.value === 'boolean') return null;
  if (typeof expr.value === 'string') return 'String';
  return Number.isInteger(expr.value) ? 'Integer' : 'Float';
}

/** `1 AND true` fails before it runs, as Cypher's type check does (its runtime check covers the rest). */
function checkBooleanOperand(operand: Expr, operator: string, source: string): void {
  const kind = literalKind(operand);
  if (kind !== null) throw syntaxProblem(source, operand.offset, `type mismatch: ${operator} expects Boolean operands, but this one is a ${kind} literal.`);
}

/** A literal's type, booleans included (null for a null literal or anything not written as a literal). */
function literalType(expr: Expr): string | null {
  if (expr.kind === 'literal' && typeof expr.value === 'boolean') return 'Boolean';
  return literalKind(expr);
}

/**
 * Operands whose literal type rules them out before anything runs, as Cypher's type check refuses
 * them (InvalidArgumentType): `1 IN 123` (IN takes a list), `properties('x')` (a node, relationship or map).
 */
function checkLiteralArgument(expr: Expr, source: string): void {
  if (expr.kind === 'in') {
    const kind = literalType(expr.list);
    if (kind !== null && kind !== 'List') throw syntaxProblem(source, expr.list.offset, `type mismatch: IN expects a list on its right, but this is a ${kind} literal.`);
  }
  if (expr.kind === 'call' && expr.name === 'properties' && expr.args.length === 1) {
    const kind = literalType(expr.args[0] as Expr);
    if (kind !== null && kind !== 'Map') throw syntaxProblem(source, expr.offset, `type mismatch: properties() takes a node, relationship or map, but this is a ${kind} literal.`);
  }
}

/** What takes a path alone, and what never takes one: argument kinds a variable's kind settles before anything runs. */
const PATH_ONLY = new Set(['length', 'nodes', 'relationships']);
const NEVER_PATH = new Set(['size']);

/**
 * Uses of a variable whose kind rules them out, as Cypher refuses them when it compiles: length(),
 * nodes() or relationships() of a node or relationship, size() of a path, a property of a path.
 */
function checkPathUse(expr: Expr, names: ReadonlyMap<string, Kind>, source: string): void {
  const kindOf = (e: Expr | undefined): Kind | undefined => (e?.kind === 'variable' ? names.get(e.name) : undefined);
  if (expr.kind === 'property' && kindOf(expr.target) === 'path') {
    throw syntaxProblem(source, expr.offset, `type mismatch: a path has no properties (.${expr.key}).`);
  }
  if (expr.kind !== 'call' || expr.args.length !== 1) return;
  const kind = kindOf(expr.args[0]);
  if (PATH_ONLY.has(expr.name) && (kind === 'node' || kind === 'rel')) {
    throw syntaxProblem(source, expr.offset, `type mismatch: ${expr.name}() takes a path, but this is a ${kind === 'node' ? 'node' : 'relationship'}.`);
  }
  if (NEVER_PATH.has(expr.name) && kind === 'path') throw syntaxProblem(source, expr.offset, `type mismatch: ${expr.name}() takes a string or list, but this is a path (length() is its length).`);
}

/** Whether an expression calls an aggregate function (outside subqueries, which hold none). */
function aggregates(expr: Expr): boolean {
  if (expr.kind === 'call' && functionSpec(expr.name)?.aggregate === true) return true;
  let found = false;
  forEachOperand(expr, (operand) => {
    found ||= aggregates(operand);
  });
  return found;
}
