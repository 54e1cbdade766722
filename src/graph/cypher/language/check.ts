import type { Expr, Pattern, Query } from './ast.ts';
import { syntaxProblem } from './cypher-error.ts';
import { forEachOperand } from './expr-operands.ts';

type Kind = 'node' | 'rel' | 'value';

/**
 * Scope rules checked before anything runs, so an error does not depend on the data: every
 * variable is defined before use, a variable keeps one kind, and CREATE makes new nodes with a label.
 */
export function checkQuery(query: Query, source: string): void {
  const scope = new Map<string, Kind>();
  const fail = (offset: number, problem: string): never => {
    throw syntaxProblem(source, offset, problem);
  };

  const declare = (target: Map<string, Kind>, name: string, kind: Kind, offset: number): void => {
    const existing = target.get(name);
    if (existing !== undefined && existing !== kind) fail(offset, `variable \`${name}\` is already a ${existing}, so it cannot also be a ${kind}.`);
    target.set(name, kind);
  };

  const checkExpr = (expr: Expr, names: ReadonlyMap<string, Kind>): void => {
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
        const inner = new Map(names);
        bindPattern(expr.pattern, inner, names);
        if (expr.where !== null) checkExpr(expr.where, inner);
        checkExpr(expr.projection, inner);
        return;
      }
      case 'patternPredicate': {
        const inner = new Map(names);
        bindPattern(expr.pattern, inner, names);
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
    for (const step of pattern.steps) if (step.rel.variable !== null) declare(target, step.rel.variable, 'rel', step.rel.offset);
  };

  for (const clause of query.reading) {
    const before = new Map(scope);
    for (const pattern of clause.patterns) bindPattern(pattern, scope, before);
    if (clause.where !== null) checkExpr(clause.where, scope);
  }
  for (const clause of query.updating) {
    switch (clause.kind) {
      case 'create': {
        for (const pattern of clause.patterns) {
          const nodes = [pattern.start, ...pattern.steps.map((s) => s.node)];
          const before = new Map(scope);
          for (const node of nodes) {
            const bound = node.variable !== null && scope.has(node.variable);
            if (bound && (node.label !== null || node.properties !== null)) {
              fail(node.offset, `variable \`${node.variable}\` is already bound, so CREATE cannot give it a label or properties.`);
            }
            if (!bound && node.label === null) fail(node.offset, 'CREATE needs a label for each new node, like (n:Person).');
            if (node.properties !== null) checkExpr(node.properties, before);
            if (node.variable !== null) declare(scope, node.variable, 'node', node.offset);
          }
          for (const step of pattern.steps) {
            if (step.rel.variable !== null) {
              if (scope.has(step.rel.variable)) fail(step.rel.offset, `variable \`${step.rel.variable}\` is already bound; CREATE needs a new relationship variable.`);
              declare(scope, step.rel.variable, 'rel', step.rel.offset);
            }
          }
        }
        break;
      }
      case 'set':
        for (const item of clause.items) {
          if (!scope.has(item.variable)) fail(item.offset, `variable \`${item.variable}\` is not defined.`);
          checkExpr(item.value, scope);
        }
        break;
      case 'remove':
        for (const item of clause.items) if (!scope.has(item.variable)) fail(item.offset, `variable \`${item.variable}\` is not defined.`);
        break;
      case 'delete':
        for (const target of clause.targets) checkExpr(target, scope);
        break;
    }
  }
  const ret = query.returns;
  if (ret !== null) {
    if (ret.star && scope.size === 0) fail(ret.offset, 'RETURN * needs at least one variable in scope.');
    for (const item of ret.items) checkExpr(item.expr, scope);
    const withAliases = new Map(scope);
    for (const item of ret.items) if (item.aliased) withAliases.set(item.name, 'value');
    for (const sort of ret.orderBy) checkExpr(sort.expr, withAliases);
    if (ret.skip !== null) checkExpr(ret.skip, new Map());
    if (ret.limit !== null) checkExpr(ret.limit, new Map());
  }
}
