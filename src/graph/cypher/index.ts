export { RESERVED as CYPHER_RESERVED_WORDS, parseCypher } from './parser.ts';
export { prepareCypher, runCypher, runCypherJson, toParams } from './execute.ts';
export type { CypherEngine, CypherResult, PreparedCypher, RunOptions } from './execute.ts';
export type { WriteStats } from './update.ts';
export { MAX_NESTING, MAX_QUERY_BYTES } from './limits.ts';
export type {
  ArithmeticOp, CaseBranch, ComparisonOp, CreateClause, DeleteClause, Direction, Expr, ExprKind, MapEntry, MatchClause, NodePattern,
  Pattern, PatternStep, ProjectionItem, Query, RelPattern, RemoveClause, ReturnClause, ReturnItem, SetClause, SetItem,
  SortItem, StringOp, UpdatingClause,
} from './ast.ts';
