export { RESERVED as CYPHER_RESERVED_WORDS, parseCypher } from './language/parser.ts';
export { prepareCypher, runCypher, runCypherJson } from './execute.ts';
export type { CypherEngine, CypherResult, RunOptions } from './execute.ts';
export { procedureRegistry } from './runtime/procedures/registry.ts';
export type { Procedure, ProcedureField, ProcedureType, ProcedureValue } from './runtime/procedures/procedure.ts';
export type { Expr, Query } from './language/ast.ts';
