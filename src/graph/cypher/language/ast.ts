/**
 * The typed syntax tree of the supported Cypher subset (docs/cypher.md). Every node carries the
 * 0-based `offset` of its first character so runtime errors can point back into the text.
 */

/**
 * One statement. A part ends with WITH (then `next` holds the rest of the statement), with RETURN, or
 * with its update clauses; `UNION [ALL]` joins whole statements (`union`), whose columns must agree.
 */
export interface Query {
  readonly kind: 'query';
  /** MATCH, OPTIONAL MATCH and UNWIND clauses, in text order; they always come before any update of the part. */
  readonly reading: readonly ReadingClause[];
  /** CREATE, MERGE, SET, REMOVE, DELETE and FOREACH clauses, in text order; the statement's updates form one batch. */
  readonly updating: readonly UpdatingClause[];
  /** `CALL { body } IN TRANSACTIONS [OF n ROWS]`: the part's last clause, after its reading clauses. */
  readonly transactions: CallInTransactions | null;
  /** `WITH ...`: the part's projection into the next part (`next`). */
  readonly with: WithClause | null;
  /** The rest of the statement after WITH. */
  readonly next: Query | null;
  readonly returns: ReturnClause | null;
  /** `UNION [ALL]` and the statement after it. */
  readonly union: { readonly all: boolean; readonly query: Query; readonly offset: number } | null;
}

export type ReadingClause = MatchClause | UnwindClause | ProcedureCallClause | SubqueryCallClause;

/**
 * `CALL { body }` (without IN TRANSACTIONS): the body runs once per row. A union branch of the body
 * that starts with an importing `WITH a, b` (plain variables only, or `WITH *`) sees those variables
 * of the row; any other branch starts from nothing. A body ending with RETURN joins the row with each
 * row it returns (no row drops it); a body ending with updates keeps the row as it came.
 * runtime/subquery-call.ts runs it.
 */
export interface SubqueryCallClause {
  readonly kind: 'subqueryCall';
  readonly body: Query;
  readonly offset: number;
}

/**
 * `CALL ns.name(args) [YIELD field [AS name], … [WHERE …]]`: each row joined with the procedure's
 * rows for it (a void procedure passes it through). language/procedure-call.ts parses it,
 * procedure-resolve.ts resolves it against the registry when the statement is prepared.
 */
export interface ProcedureCallClause {
  readonly kind: 'procedureCall';
  /** The dotted name as written: `db.labels`. */
  readonly name: string;
  /** The arguments; null for `CALL ns.name` without parentheses (the statement's parameters of the procedure's parameter names). */
  readonly args: readonly Expr[] | null;
  /** The outputs bound (`field AS variable`); null without YIELD. */
  readonly yields: readonly YieldItem[] | null;
  /** `YIELD *` (only when the call is the whole statement). */
  readonly yieldStar: boolean;
  readonly where: Expr | null;
  /** The call is the whole statement: its outputs are the result's columns. */
  readonly standalone: boolean;
  readonly offset: number;
}

export interface YieldItem {
  readonly field: string;
  readonly variable: string;
  readonly offset: number;
}

/**
 * `CALL { body } IN TRANSACTIONS [OF n ROWS]`: the body runs over the rows before it, n rows at a time
 * (default 1000), and each batch commits on its own.
 */
export interface CallInTransactions {
  readonly body: Query;
  /** The rows per batch; null for the default. */
  readonly rows: Expr | null;
  readonly offset: number;
}

/** `UNWIND list AS x`: one row per item (none for an empty list or null). */
export interface UnwindClause {
  readonly kind: 'unwind';
  readonly list: Expr;
  readonly variable: string;
  readonly offset: number;
}

/** `WITH [DISTINCT] items [ORDER BY ...] [SKIP n] [LIMIT n] [WHERE ...]`: RETURN's projection, into the next part. */
export interface WithClause extends Omit<ReturnClause, 'kind'> {
  readonly kind: 'with';
  readonly where: Expr | null;
}

export interface MatchClause {
  readonly kind: 'match';
  readonly optional: boolean;
  readonly patterns: readonly Pattern[];
  readonly where: Expr | null;
  readonly offset: number;
}

export type UpdatingClause = CreateClause | MergeClause | SetClause | RemoveClause | DeleteClause | ForeachClause;

/** `MERGE pattern [ON CREATE SET ...] [ON MATCH SET ...]`: matches the whole pattern, or creates it whole. */
export interface MergeClause {
  readonly kind: 'merge';
  readonly pattern: Pattern;
  readonly onCreate: readonly SetItem[];
  readonly onMatch: readonly SetItem[];
  readonly offset: number;
}

/** `FOREACH (x IN list | updates)`: the updates run for every item of the list, for every row. */
export interface ForeachClause {
  readonly kind: 'foreach';
  readonly variable: string;
  readonly list: Expr;
  readonly updates: readonly UpdatingClause[];
  readonly offset: number;
}

export interface CreateClause {
  readonly kind: 'create';
  readonly patterns: readonly Pattern[];
  readonly offset: number;
}

export interface SetClause {
  readonly kind: 'set';
  readonly items: readonly SetItem[];
  readonly offset: number;
}

/** `n.prop = expr`, `n = map` (replace all properties) or `n += map` (merge). */
export type SetItem =
  | { readonly kind: 'setProperty'; readonly variable: string; readonly key: string; readonly value: Expr; readonly offset: number }
  | { readonly kind: 'setProperties'; readonly variable: string; readonly merge: boolean; readonly value: Expr; readonly offset: number };

export interface RemoveClause {
  readonly kind: 'remove';
  readonly items: readonly { readonly variable: string; readonly key: string; readonly offset: number }[];
  readonly offset: number;
}

export interface DeleteClause {
  readonly kind: 'delete';
  readonly detach: boolean;
  readonly targets: readonly Expr[];
  readonly offset: number;
}

export interface ReturnClause {
  readonly kind: 'return';
  readonly distinct: boolean;
  /** `RETURN *` sets `star`; items then lists nothing. */
  readonly star: boolean;
  readonly items: readonly ReturnItem[];
  readonly orderBy: readonly SortItem[];
  readonly skip: Expr | null;
  readonly limit: Expr | null;
  readonly offset: number;
}

export interface ReturnItem {
  readonly expr: Expr;
  /** The column name: the alias, or the expression's text as written. */
  readonly name: string;
  readonly aliased: boolean;
}

export interface SortItem {
  readonly expr: Expr;
  readonly descending: boolean;
}

/** A path: a node followed by zero or more (relationship, node) steps. */
export interface Pattern {
  /** `p = (...)`: the variable the whole matched (or created) path is bound to. */
  readonly path?: string;
  /** `shortestPath(...)` (one shortest path) or `allShortestPaths(...)` (every path of the shortest length). */
  readonly shortest?: 'one' | 'all';
  readonly start: NodePattern;
  readonly steps: readonly PatternStep[];
  readonly offset: number;
}

export interface PatternStep {
  readonly rel: RelPattern;
  readonly node: NodePattern;
}

export interface NodePattern {
  readonly kind: 'node';
  readonly variable: string | null;
  readonly label: string | null;
  /** A map literal or a parameter, matched by equality on every key. */
  readonly properties: Expr | null;
  readonly offset: number;
}

export type Direction = 'out' | 'in' | 'both';

export interface RelPattern {
  readonly kind: 'rel';
  readonly variable: string | null;
  /** Alternatives from `:A|B`; empty means any type. */
  readonly types: readonly string[];
  readonly direction: Direction;
  /** A variable-length relationship (`*`, `*2`, `*1..3`): hop bounds, max null for unbounded; absent for one hop. */
  readonly length?: { readonly min: number; readonly max: number | null };
  readonly offset: number;
}

export type ComparisonOp = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^';
type StringOp = 'STARTS WITH' | 'ENDS WITH' | 'CONTAINS';

export type Expr =
  | { readonly kind: 'literal'; readonly value: null | boolean | number | string; readonly offset: number }
  | { readonly kind: 'list'; readonly items: readonly Expr[]; readonly offset: number }
  | { readonly kind: 'map'; readonly entries: readonly MapEntry[]; readonly offset: number }
  | { readonly kind: 'parameter'; readonly name: string; readonly offset: number }
  | { readonly kind: 'variable'; readonly name: string; readonly offset: number }
  | { readonly kind: 'property'; readonly target: Expr; readonly key: string; readonly offset: number }
  | { readonly kind: 'index'; readonly target: Expr; readonly index: Expr; readonly offset: number }
  /** `list[from..to]`: either bound may be left out; negative bounds count from the end. */
  | { readonly kind: 'slice'; readonly target: Expr; readonly from: Expr | null; readonly to: Expr | null; readonly offset: number }
  /**
   * `CASE [subject] WHEN a THEN x ... [ELSE y] END`: with a subject, the first `when` equal to it;
   * without, the first `when` that is true. Null when none applies and there is no ELSE.
   */
  | { readonly kind: 'case'; readonly subject: Expr | null; readonly branches: readonly CaseBranch[]; readonly otherwise: Expr | null; readonly offset: number }
  /** `n:Label` used as a predicate. */
  | { readonly kind: 'hasLabel'; readonly target: Expr; readonly label: string; readonly offset: number }
  /** `a AND b AND c`: chains are flat so long conjunctions cost no recursion depth. */
  | { readonly kind: 'and' | 'or' | 'xor'; readonly operands: readonly Expr[]; readonly offset: number }
  | { readonly kind: 'not'; readonly operand: Expr; readonly offset: number }
  | { readonly kind: 'negate'; readonly operand: Expr; readonly offset: number }
  /** `a < b <= c` means `a < b AND b <= c`, as in Cypher. */
  | { readonly kind: 'comparison'; readonly first: Expr; readonly rest: readonly { readonly op: ComparisonOp; readonly expr: Expr }[]; readonly offset: number }
  | { readonly kind: 'arithmetic'; readonly first: Expr; readonly rest: readonly { readonly op: ArithmeticOp; readonly expr: Expr }[]; readonly offset: number }
  | { readonly kind: 'isNull'; readonly operand: Expr; readonly negated: boolean; readonly offset: number }
  | { readonly kind: 'in'; readonly element: Expr; readonly list: Expr; readonly offset: number }
  | { readonly kind: 'string'; readonly op: StringOp; readonly left: Expr; readonly right: Expr; readonly offset: number }
  /** `left =~ right`: whether the whole string matches the (Java-dialect) pattern; runtime/regex-vm.ts. */
  | { readonly kind: 'regex'; readonly left: Expr; readonly right: Expr; readonly offset: number }
  /** `count(*)` has `star`; other calls list their arguments. Names are lower-cased. */
  | { readonly kind: 'call'; readonly name: string; readonly distinct: boolean; readonly star: boolean; readonly args: readonly Expr[]; readonly offset: number }
  | { readonly kind: 'mapProjection'; readonly variable: string; readonly items: readonly ProjectionItem[]; readonly offset: number }
  | { readonly kind: 'patternComprehension'; readonly pattern: Pattern; readonly where: Expr | null; readonly projection: Expr; readonly offset: number }
  /** A bare pattern used as a predicate, e.g. `WHERE (a)-[:KNOWS]->(b)`: true when it matches at least once. */
  | { readonly kind: 'patternPredicate'; readonly pattern: Pattern; readonly offset: number }
  /**
   * `[x IN list WHERE pred | projection]` (WHERE and the projection may each be left out). `variable`
   * is local to `where` and `projection`, and shadows an outer variable of the same name there.
   */
  | { readonly kind: 'listComprehension'; readonly variable: string; readonly list: Expr; readonly where: Expr | null; readonly projection: Expr | null; readonly offset: number }
  /** `all(x IN list WHERE pred)`, and `any`, `none`, `single`; `variable` is local to `where`. */
  | { readonly kind: 'quantifier'; readonly quantifier: Quantifier; readonly variable: string; readonly list: Expr; readonly where: Expr; readonly offset: number }
  /** `reduce(accumulator = init, variable IN list | body)`: both names are local to `body`. */
  | { readonly kind: 'reduce'; readonly accumulator: string; readonly init: Expr; readonly variable: string; readonly list: Expr; readonly body: Expr; readonly offset: number }
  /**
   * `EXISTS { [MATCH] patterns [WHERE ...] }` and `COUNT { ... }`: whether the patterns match for the
   * row, and how often. Their variables are bound as a pattern comprehension's are; a trailing
   * `RETURN items` is kept in `returns` for the scope check only (it changes neither answer).
   */
  | { readonly kind: 'existsSubquery' | 'countSubquery'; readonly patterns: readonly Pattern[]; readonly where: Expr | null; readonly returns: readonly Expr[]; readonly offset: number };

export type Quantifier = 'all' | 'any' | 'none' | 'single';

export interface CaseBranch {
  readonly when: Expr;
  readonly then: Expr;
}

export interface MapEntry {
  readonly key: string;
  readonly value: Expr;
}

/** Items of `n {.name, .*, alias: expr, other}`. */
export type ProjectionItem =
  | { readonly kind: 'propertySelector'; readonly key: string }
  | { readonly kind: 'allProperties' }
  | { readonly kind: 'literalEntry'; readonly key: string; readonly value: Expr }
  | { readonly kind: 'variableSelector'; readonly name: string };
