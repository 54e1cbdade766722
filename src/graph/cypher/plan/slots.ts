import type { Expr, NodePattern, Pattern, Query, RelPattern, ReturnClause, SetItem, UpdatingClause, WithClause } from '../language/ast.ts';
import { forEachOperand } from '../language/expr-operands.ts';
import { callExpressions, yieldedVariables } from '../language/procedure-call.ts';
import { subqueryCallsOf } from '../language/subquery-call.ts';

/**
 * Where each variable of a statement lives in a row. Rows are arrays, one slot per variable, decided
 * once per statement: growing a row is one array copy, never a Map copy per row and step.
 *
 * - Every variable name gets a slot (the same name shares one slot: scoping rules make a name mean
 *   one thing wherever it is bound). RETURN aliases get one too, so ORDER BY can read them. So do
 *   the local variables of list comprehensions, quantifiers and reduce: those expressions evaluate
 *   their bodies on a copy of the row (evaluate.ts), so a local never overwrites an outer variable
 *   of the same name, and outer rows never hold it.
 * - Every node of a matched pattern gets a slot; anonymous ones get hidden slots, so a step can
 *   continue from the node the previous step reached.
 * - A relationship gets a slot when it is named, or when relationship uniqueness (one relationship
 *   bound at most once per MATCH) needs to compare it: with another relationship of the same MATCH
 *   (or pattern comprehension) whose types may overlap. Each such pair are each other's `partners`.
 *   Relationships with no slot are expanded without building edge records at all.
 */
export interface SlotLayout {
  readonly slots: ReadonlyMap<string, number>;
  /** Named slots are 0 to names.length - 1, hidden ones follow. */
  readonly names: readonly string[];
  readonly width: number;
  nodeSlot(node: NodePattern): number;
  /** The relationship's slot, or -1 when it has none. */
  relSlot(rel: RelPattern): number;
  /** Slots of the relationships this one must differ from (all in the same match scope). */
  partners(rel: RelPattern): readonly number[];
  /**
   * Whether a slot is read after the pattern that binds it: a variable used anywhere else in the
   * statement (or everything, under RETURN *), or a relationship that uniqueness compares. A pattern
   * writes only live slots into its rows: `MATCH (a)-->(b)-->(c) RETURN count(c)` never stores a or b.
   */
  isLive(slot: number): boolean;
  /**
   * Whether `count(v)` counts rows: v is bound by a MATCH (never an OPTIONAL one), so it is never
   * null and `count(v)` is `count(*)`. Such a count does not keep v live.
   */
  countsRows(call: Expr): boolean;
}

const NONE: readonly number[] = Object.freeze([]);

/**
 * Calls `visit` with the patterns of every pattern comprehension, pattern predicate and EXISTS/COUNT
 * subquery in `expr` (one match scope each), and `local` with the name of every local variable of
 * list comprehensions, quantifiers and reduce, at any depth.
 */
function forEachInnerScope(expr: Expr, visit: (patterns: readonly Pattern[]) => void, local: (name: string) => void): void {
  switch (expr.kind) {
    case 'patternComprehension':
      visit([expr.pattern]);
      if (expr.where !== null) forEachInnerScope(expr.where, visit, local);
      forEachInnerScope(expr.projection, visit, local);
      return;
    case 'patternPredicate':
      visit([expr.pattern]);
      return;
    case 'existsSubquery':
    case 'countSubquery':
      visit(expr.patterns);
      if (expr.where !== null) forEachInnerScope(expr.where, visit, local);
      return;
    case 'reduce':
      local(expr.accumulator);
      local(expr.variable);
      break;
    case 'listComprehension':
    case 'quantifier':
      local(expr.variable);
      break;
    default:
      break;
  }
  forEachOperand(expr, (operand) => forEachInnerScope(operand, visit, local));
}

type CountCall = Extract<Expr, { kind: 'call' }>;

/** Every part of a statement: the parts WITH chains, for each statement UNION joins. */
export function partsOf(query: Query): Query[] {
  const parts: Query[] = [];
  for (let statement: Query | null = query; statement !== null; statement = statement.union?.query ?? null) {
    for (let part: Query | null = statement; part !== null; part = part.next) {
      parts.push(part);
      if (part.transactions !== null) parts.push(...partsOf(part.transactions.body));
      for (const call of subqueryCallsOf(part)) parts.push(...partsOf(call.body));
    }
  }
  return parts;
}

/** Calls `visit` for every update clause, FOREACH bodies included. */
function forEachUpdate(clauses: readonly UpdatingClause[], visit: (clause: UpdatingClause) => void): void {
  for (const clause of clauses) {
    visit(clause);
    if (clause.kind === 'foreach') forEachUpdate(clause.updates, visit);
  }
}

/**
 * Names whose value is never null: bound by a MATCH that is not OPTIONAL when first in scope, and never
 * bound otherwise (an OPTIONAL MATCH that brings the name into scope, UNWIND, a WITH alias, FOREACH).
 */
function neverNull(query: Query): Set<string> {
  const out = new Set<string>();
  const nullable = new Set<string>();
  for (let statement: Query | null = query; statement !== null; statement = statement.union?.query ?? null) {
    let seen = new Set<string>();
    for (let part: Query | null = statement; part !== null; part = part.next) {
      for (const clause of part.reading) {
        if (clause.kind === 'unwind') {
          nullable.add(clause.variable);
          seen.add(clause.variable);
          continue;
        }
        if (clause.kind === 'procedureCall') {
          for (const name of yieldedVariables(clause)) {
            nullable.add(name);
            seen.add(name);
          }
          continue;
        }
        if (clause.kind === 'subqueryCall') {
          // A body's names are its own scope's (and may be null there): never counted as rows.
          const inner = usedNames(clause.body, new Set()).uses;
          for (const name of inner.keys()) {
            nullable.add(name);
            seen.add(name);
          }
          continue;
        }
        for (const pattern of clause.patterns) {
          forEachPatternVariable(pattern, (name) => {
            if (seen.has(name)) return;
            seen.add(name);
            if (clause.optional) nullable.add(name);
            else out.add(name);
          }, () => undefined);
        }
      }
      forEachUpdate(part.updating, (clause) => {
        if (clause.kind === 'foreach') nullable.add(clause.variable);
        if (clause.kind === 'merge') forEachPatternVariable(clause.pattern, (name) => seen.add(name), () => undefined);
        if (clause.kind === 'create') for (const pattern of clause.patterns) forEachPatternVariable(pattern, (name) => seen.add(name), () => undefined);
      });
      const projection = part.with;
      if (projection !== null) {
        const kept = new Set<string>(projection.star ? seen : []);
        for (const item of projection.items) {
          kept.add(item.name);
          if (item.expr.kind !== 'variable' || item.expr.name !== item.name) nullable.add(item.name);
        }
        seen = kept;
      }
    }
  }
  for (const name of nullable) out.delete(name);
  return out;
}

/** `count(v)` (not DISTINCT) of a variable that is never null. */
function isRowCount(expr: Expr, nonNull: ReadonlySet<string>): expr is CountCall {
  return expr.kind === 'call' && expr.name === 'count' && !expr.distinct && !expr.star && expr.args.length === 1
    && expr.args[0]!.kind === 'variable' && nonNull.has(expr.args[0]!.name);
}

/** Calls `use` for every mention of a variable in `expr`, inside pattern comprehensions too. */
function forEachVariableUse(expr: Expr, use: (name: string) => void, skip?: (expr: Expr) => boolean): void {
  if (skip?.(expr)) return;
  switch (expr.kind) {
    case 'variable':
      use(expr.name);
      return;
    case 'mapProjection':
      use(expr.variable);
      for (const item of expr.items) {
        if (item.kind === 'variableSelector') use(item.name);
        if (item.kind === 'literalEntry') forEachVariableUse(item.value, use, skip);
      }
      return;
    case 'patternComprehension':
    case 'patternPredicate':
      forEachPatternVariable(expr.pattern, use, (e) => forEachVariableUse(e, use, skip));
      if (expr.kind === 'patternComprehension') {
        if (expr.where !== null) forEachVariableUse(expr.where, use, skip);
        forEachVariableUse(expr.projection, use, skip);
      }
      return;
    case 'existsSubquery':
    case 'countSubquery':
      for (const pattern of expr.patterns) forEachPatternVariable(pattern, use, (e) => forEachVariableUse(e, use, skip));
      if (expr.where !== null) forEachVariableUse(expr.where, use, skip);
      return;
    case 'listComprehension':
    case 'quantifier':
    case 'reduce': {
      // Inside the body the locals' names are the locals, not outer variables: they keep no slot live.
      const locals = expr.kind === 'reduce' ? [expr.accumulator, expr.variable] : [expr.variable];
      const outer = (name: string): void => {
        if (!locals.includes(name)) use(name);
      };
      if (expr.kind === 'reduce') {
        forEachVariableUse(expr.init, use, skip);
        forEachVariableUse(expr.list, use, skip);
        forEachVariableUse(expr.body, outer, skip);
      } else {
        forEachVariableUse(expr.list, use, skip);
        if (expr.where !== null) forEachVariableUse(expr.where, outer, skip);
        if (expr.kind === 'listComprehension' && expr.projection !== null) forEachVariableUse(expr.projection, outer, skip);
      }
      return;
    }
    default:
      forEachOperand(expr, (operand) => forEachVariableUse(operand, use, skip));
  }
}

function forEachPatternVariable(pattern: Pattern, use: (name: string) => void, properties: (expr: Expr) => void): void {
  for (const node of [pattern.start, ...pattern.steps.map((s) => s.node)]) {
    if (node.variable !== null) use(node.variable);
    if (node.properties !== null) properties(node.properties);
  }
  for (const step of pattern.steps) if (step.rel.variable !== null) use(step.rel.variable);
  if (pattern.path !== undefined) use(pattern.path);
}

/**
 * How often each name is mentioned (a binding counts; a name mentioned once is bound and never read),
 * and whether RETURN * reads them all. Row counts (see `isRowCount`) are not reads.
 */
function usedNames(query: Query, rowCounts: Set<Expr>): { uses: Map<string, number>; all: boolean } {
  const uses = new Map<string, number>();
  const use = (name: string): void => {
    uses.set(name, (uses.get(name) ?? 0) + 1);
  };
  const nonNull = neverNull(query);
  const skip = (e: Expr): boolean => {
    if (!isRowCount(e, nonNull)) return false;
    rowCounts.add(e);
    return true;
  };
  const expr = (e: Expr): void => forEachVariableUse(e, use, skip);
  let all = false;
  const projection = (clause: ReturnClause | WithClause): void => {
    if (clause.star) all = true;
    for (const item of clause.items) expr(item.expr);
    for (const sort of clause.orderBy) expr(sort.expr);
    if (clause.skip !== null) expr(clause.skip);
    if (clause.limit !== null) expr(clause.limit);
    if (clause.kind === 'with') {
      for (const item of clause.items) if (item.aliased) use(item.name);
      if (clause.where !== null) expr(clause.where);
    }
  };
  const setItems = (items: readonly SetItem[]): void => {
    for (const item of items) {
      use(item.variable);
      expr(item.value);
    }
  };
  for (const part of partsOf(query)) {
    for (const clause of part.reading) {
      if (clause.kind === 'unwind') {
        expr(clause.list);
        use(clause.variable);
        continue;
      }
      if (clause.kind === 'procedureCall') {
        callExpressions(clause).forEach(expr);
        yieldedVariables(clause).forEach(use);
        continue;
      }
      // Its body's parts are among partsOf's.
      if (clause.kind === 'subqueryCall') continue;
      for (const pattern of clause.patterns) forEachPatternVariable(pattern, use, expr);
      if (clause.where !== null) expr(clause.where);
    }
    forEachUpdate(part.updating, (clause) => {
      switch (clause.kind) {
        case 'create':
          for (const pattern of clause.patterns) forEachPatternVariable(pattern, use, expr);
          break;
        case 'merge':
          forEachPatternVariable(clause.pattern, use, expr);
          setItems(clause.onCreate);
          setItems(clause.onMatch);
          break;
        case 'set':
          setItems(clause.items);
          break;
        case 'remove':
          for (const item of clause.items) use(item.variable);
          break;
        case 'delete':
          clause.targets.forEach(expr);
          break;
        case 'foreach':
          expr(clause.list);
          use(clause.variable);
          break;
      }
    });
    if (part.with !== null) projection(part.with);
    if (part.returns !== null) projection(part.returns);
  }
  return { uses, all };
}

function overlaps(a: RelPattern, b: RelPattern): boolean {
  if (a.types.length === 0 || b.types.length === 0) return true;
  return a.types.some((t) => b.types.includes(t));
}

export function layoutOf(query: Query): SlotLayout {
  const slots = new Map<string, number>();
  const names: string[] = [];
  const name = (variable: string): number => {
    let slot = slots.get(variable);
    if (slot === undefined) {
      slot = names.length;
      slots.set(variable, slot);
      names.push(variable);
    }
    return slot;
  };

  // Match scopes: each MATCH clause (its patterns together), each pattern comprehension or predicate, each EXISTS/COUNT subquery.
  const scopes: Pattern[][] = [];
  const exprs: Expr[] = [];
  const patternExprs = (pattern: Pattern): void => {
    for (const node of [pattern.start, ...pattern.steps.map((s) => s.node)]) if (node.properties !== null) exprs.push(node.properties);
  };
  const created = (pattern: Pattern): void => {
    patternExprs(pattern);
    if (pattern.path !== undefined) name(pattern.path);
    if (pattern.start.variable !== null) name(pattern.start.variable);
    for (const step of pattern.steps) {
      if (step.rel.variable !== null) name(step.rel.variable);
      if (step.node.variable !== null) name(step.node.variable);
    }
  };
  const projection = (clause: ReturnClause | WithClause): void => {
    for (const item of clause.items) {
      exprs.push(item.expr);
      if (item.aliased || clause.kind === 'with') name(item.name);
    }
    for (const sort of clause.orderBy) exprs.push(sort.expr);
    if (clause.skip !== null) exprs.push(clause.skip);
    if (clause.limit !== null) exprs.push(clause.limit);
    if (clause.kind === 'with' && clause.where !== null) exprs.push(clause.where);
  };
  for (const part of partsOf(query)) {
    for (const clause of part.reading) {
      if (clause.kind === 'unwind') {
        exprs.push(clause.list);
        name(clause.variable);
        continue;
      }
      if (clause.kind === 'procedureCall') {
        exprs.push(...callExpressions(clause));
        yieldedVariables(clause).forEach(name);
        continue;
      }
      if (clause.kind === 'subqueryCall') continue;
      scopes.push([...clause.patterns]);
      for (const pattern of clause.patterns) patternExprs(pattern);
      if (clause.where !== null) exprs.push(clause.where);
    }
    forEachUpdate(part.updating, (clause) => {
      switch (clause.kind) {
        case 'create':
          for (const pattern of clause.patterns) created(pattern);
          break;
        case 'merge':
          // MERGE matches its pattern first: a match scope, whose variables it may also create.
          scopes.push([clause.pattern]);
          created(clause.pattern);
          for (const item of [...clause.onCreate, ...clause.onMatch]) exprs.push(item.value);
          break;
        case 'set':
          for (const item of clause.items) exprs.push(item.value);
          break;
        case 'delete':
          exprs.push(...clause.targets);
          break;
        case 'foreach':
          exprs.push(clause.list);
          name(clause.variable);
          break;
        case 'remove':
          break;
      }
    });
    if (part.with !== null) projection(part.with);
    if (part.returns !== null) projection(part.returns);
  }
  // Property maps inside subquery patterns may hold further subqueries: walk until none is new.
  for (let i = 0; i < exprs.length; i++) {
    forEachInnerScope(exprs[i]!, (patterns) => {
      scopes.push([...patterns]);
      for (const pattern of patterns) patternExprs(pattern);
    }, name);
  }

  // Named variables first, so their slots are stable whatever the hidden ones are.
  for (const scope of scopes) {
    for (const pattern of scope) {
      if (pattern.path !== undefined) name(pattern.path);
      if (pattern.start.variable !== null) name(pattern.start.variable);
      for (const step of pattern.steps) {
        if (step.rel.variable !== null) name(step.rel.variable);
        if (step.node.variable !== null) name(step.node.variable);
      }
    }
  }
  let width = names.length;
  const nodeSlots = new Map<NodePattern, number>();
  const relSlots = new Map<RelPattern, number>();
  const partnerSlots = new Map<RelPattern, number[]>();
  // A named path reads every node and relationship of its pattern: each has a slot.
  const onNamedPath = new Set<RelPattern>();
  for (const scope of scopes) {
    const rels: RelPattern[] = [];
    for (const pattern of scope) {
      if (pattern.path !== undefined) for (const step of pattern.steps) onNamedPath.add(step.rel);
      for (const node of [pattern.start, ...pattern.steps.map((s) => s.node)]) {
        nodeSlots.set(node, node.variable !== null ? slots.get(node.variable)! : width++);
      }
      for (const step of pattern.steps) rels.push(step.rel);
    }
    const partnered = new Set<RelPattern>();
    for (let i = 0; i < rels.length; i++) {
      for (let j = i + 1; j < rels.length; j++) {
        if (overlaps(rels[i]!, rels[j]!)) {
          partnered.add(rels[i]!);
          partnered.add(rels[j]!);
        }
      }
    }
    for (const rel of rels) {
      if (rel.variable !== null) relSlots.set(rel, slots.get(rel.variable)!);
      else if (partnered.has(rel) || onNamedPath.has(rel)) relSlots.set(rel, width++);
    }
    for (let i = 0; i < rels.length; i++) {
      const list: number[] = [];
      for (let j = 0; j < rels.length; j++) if (j !== i && overlaps(rels[i]!, rels[j]!)) list.push(relSlots.get(rels[j]!)!);
      if (list.length > 0) partnerSlots.set(rels[i]!, list);
    }
  }
  const rowCounts = new Set<Expr>();
  const { uses, all } = usedNames(query, rowCounts);
  const live = new Set<number>();
  names.forEach((n, slot) => {
    if (all || (uses.get(n) ?? 0) > 1) live.add(slot);
  });
  for (const list of partnerSlots.values()) for (const slot of list) live.add(slot);
  for (const scope of scopes) {
    for (const pattern of scope) {
      // A shortest-path search reads its two ends from the rows that matched them.
      if (pattern.shortest !== undefined) for (const node of [pattern.start, ...pattern.steps.map((s) => s.node)]) live.add(nodeSlots.get(node)!);
      if (pattern.path === undefined || !live.has(slots.get(pattern.path)!)) continue;
      for (const node of [pattern.start, ...pattern.steps.map((s) => s.node)]) live.add(nodeSlots.get(node)!);
      for (const step of pattern.steps) live.add(relSlots.get(step.rel)!);
    }
  }
  return {
    slots,
    names,
    width,
    nodeSlot: (node) => nodeSlots.get(node)!,
    relSlot: (rel) => relSlots.get(rel) ?? -1,
    partners: (rel) => partnerSlots.get(rel) ?? NONE,
    isLive: (slot) => live.has(slot),
    countsRows: (call) => rowCounts.has(call),
  };
}
