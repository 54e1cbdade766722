import type {
  ArithmeticOp,
  CaseBranch,
  ComparisonOp,
  CreateClause,
  DeleteClause,
  Direction,
  Expr,
  MapEntry,
  MatchClause,
  NodePattern,
  Pattern,
  PatternStep,
  ProjectionItem,
  Query,
  RelPattern,
  RemoveClause,
  ReturnClause,
  ReturnItem,
  SetClause,
  SetItem,
  SortItem,
  UpdatingClause,
  ReadingClause,
  UnwindClause,
  MergeClause,
  ForeachClause,
  WithClause,
  CallInTransactions,
  SubqueryCallClause,
  Quantifier,
} from './ast.ts';
import { TEMPORAL_FUNCTIONS, positionOf, syntaxError, syntaxProblem, unsupported } from './cypher-error.ts';
import { forEachOperand } from './expr-operands.ts';
import { functionSpec } from '../runtime/functions.ts';
import { lex, type Token } from './lexer.ts';
import { isProcedureCallStart, isStandaloneCall, parseProcedureCall, type ClauseReader } from './procedure-call.ts';
import { MAX_NESTING, tooDeep } from './limits.ts';
import { endsWithUnitSubquery } from './subquery-call.ts';

/** Words that cannot name a variable (they still work as labels, property keys and map keys). */
/** Words the subset reserves: a variable with one of these names must be backtick-quoted. */
export const RESERVED: ReadonlySet<string> = new Set([
  'ALL', 'AND', 'AS', 'ASC', 'ASCENDING', 'BY', 'CALL', 'CASE', 'CONTAINS', 'CREATE', 'DELETE', 'DESC', 'DESCENDING',
  'DETACH', 'DISTINCT', 'ELSE', 'END', 'ENDS', 'EXISTS', 'FALSE', 'FOREACH', 'IN', 'IS', 'LIMIT', 'LOAD', 'MATCH', 'MERGE',
  'NOT', 'NULL', 'OPTIONAL', 'OR', 'ORDER', 'REMOVE', 'RETURN', 'SET', 'SKIP', 'STARTS', 'THEN', 'TRUE', 'UNION', 'UNWIND',
  'USE', 'WHEN', 'WHERE', 'WITH', 'XOR', 'YIELD',
]);

/** Clause keywords of full Cypher that the subset refuses with TG_CYPHER_UNSUPPORTED rather than a syntax error. */
const UNSUPPORTED_CLAUSES = new Set(['LOAD', 'USE', 'SHOW', 'YIELD']);

const CLAUSE_START = 'MATCH, OPTIONAL MATCH, UNWIND, WITH, CREATE, MERGE, SET, REMOVE, DELETE, DETACH DELETE, FOREACH or RETURN';

/** Whether an expression calls an aggregate (not looking into subqueries, which the parser keeps free of them). */
function containsAggregate(expr: Expr): boolean {
  if (expr.kind === 'call' && functionSpec(expr.name)?.aggregate === true) return true;
  let found = false;
  forEachOperand(expr, (operand) => {
    found ||= containsAggregate(operand);
  });
  return found;
}

/** Parses one Cypher statement of the documented subset into its syntax tree. */
export function parseCypher(source: string): Query {
  return new Parser(source).parseQuery();
}

interface Context {
  /** Aggregates are legal only directly inside a RETURN item or ORDER BY. */
  aggregates: boolean;
}

class Parser {
  private readonly source: string;
  private readonly tokens: readonly Token[];
  private readonly closers: readonly number[];
  private pos = 0;
  private depth = 0;
  private context: Context = { aggregates: false };

  constructor(source: string) {
    this.source = source;
    const lexed = lex(source);
    this.tokens = lexed.tokens;
    this.closers = lexed.closers;
  }

  /** The token helpers, for clauses parsed in their own modules (procedure-call.ts). */
  private readonly reader: ClauseReader = {
    source: () => this.source,
    peek: (k) => this.peek(k),
    advance: () => this.advance(),
    isSymbol: (text, k) => this.isSymbol(text, k),
    isKeyword: (word, k) => this.isKeyword(word, k),
    acceptSymbol: (text) => this.acceptSymbol(text),
    acceptKeyword: (word) => this.acceptKeyword(word),
    expectSymbol: (text, expected) => this.expectSymbol(text, expected),
    parseName: (what) => this.parseName(what),
    parseVariable: () => this.parseVariable(),
    parseExpression: () => this.parseExpression(),
  };

  // ---- token helpers ----

  private peek(k = 0): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)]!;
  }

  private advance(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  private isSymbol(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'symbol' && t.text === text;
  }

  private isKeyword(word: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'ident' && t.text.toUpperCase() === word;
  }

  private acceptSymbol(text: string): boolean {
    if (!this.isSymbol(text)) return false;
    this.pos++;
    return true;
  }

  private acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.pos++;
    return true;
  }

  private found(t: Token = this.peek()): string | null {
    if (t.kind === 'eof') return null;
    return this.source.slice(t.offset, t.end);
  }

  private fail(expected: string, t: Token = this.peek()): never {
    throw syntaxError(this.source, t.offset, expected, this.found(t));
  }

  private expectSymbol(text: string, expected = `'${text}'`): Token {
    if (!this.isSymbol(text)) this.fail(expected);
    return this.advance();
  }

  private expectKeyword(word: string, expected = word): Token {
    if (!this.isKeyword(word)) this.fail(expected);
    return this.advance();
  }

  /** A name: identifier (keywords allowed) or backtick-quoted. */
  private parseName(what: string): string {
    const t = this.peek();
    if (t.kind === 'ident' || t.kind === 'quoted') {
      this.pos++;
      return t.text;
    }
    return this.fail(what);
  }

  private isVariableStart(k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'quoted' || (t.kind === 'ident' && !RESERVED.has(t.text.toUpperCase()));
  }

  private parseVariable(): string {
    if (!this.isVariableStart()) this.fail('a variable name');
    return this.advance().text;
  }

  private enter(at: Token = this.peek()): void {
    this.depth++;
    if (this.depth > MAX_NESTING) {
      const { line, column } = positionOf(this.source, at.offset);
      throw tooDeep(line, column);
    }
  }

  private leave(levels = 1): void {
    this.depth -= levels;
  }

  private lastEnd(): number {
    return this.tokens[this.pos - 1]?.end ?? 0;
  }

  // ---- statement ----

  parseQuery(): Query {
    const query = this.parseUnion();
    this.acceptSymbol(';');
    if (this.peek().kind !== 'eof') {
      this.rejectUnsupportedClause();
      let last = query;
      while (last.union !== null) last = last.union.query;
      while (last.next !== null) last = last.next;
      if (last.returns !== null) this.fail(this.isKeyword('ORDER') || this.isKeyword('SKIP') || this.isKeyword('LIMIT') ? 'end of input (ORDER BY, SKIP and LIMIT go in that order)' : 'end of input');
      this.fail(`${CLAUSE_START}, or end of input`);
    }
    return query;
  }

  /** A statement and the statements UNION joins to it. */
  private parseUnion(): Query {
    const first = this.parsePart();
    if (!this.isKeyword('UNION')) return first;
    const at = this.advance();
    const all = this.acceptKeyword('ALL');
    return { ...first, union: { all, query: this.parseUnion(), offset: at.offset } };
  }

  /** Reading clauses, update clauses, then WITH and the next part, RETURN, or nothing. */
  private parsePart(): Query {
    const reading: ReadingClause[] = [];
    const updating: UpdatingClause[] = [];
    this.rejectUnsupportedClause();
    while (this.isKeyword('MATCH') || this.isKeyword('OPTIONAL') || this.isKeyword('UNWIND') || isProcedureCallStart(this.reader) || this.isSubqueryCallStart()) {
      if (this.isSubqueryCallStart()) reading.push(this.parseSubqueryCall());
      else if (isProcedureCallStart(this.reader)) reading.push(parseProcedureCall(this.reader, this.pos === 0));
      else reading.push(this.isKeyword('UNWIND') ? this.parseUnwind() : this.parseMatch());
      this.rejectUnsupportedClause();
    }
    for (;;) {
      this.rejectUnsupportedClause();
      const clause = this.parseUpdatingClause();
      if (clause === null) break;
      updating.push(clause);
    }
    if (updating.length > 0 && (this.isKeyword('MATCH') || this.isKeyword('OPTIONAL') || this.isKeyword('UNWIND'))) {
      throw syntaxProblem(this.source, this.peek().offset, `${this.peek().text.toUpperCase()} cannot follow an update clause directly; put WITH between them (… WITH * ${this.peek().text.toUpperCase()} …).`);
    }
    if (this.isKeyword('CALL')) {
      if (updating.length > 0) throw unsupported(this.source, this.peek().offset, 'CALL after an update clause');
      return { kind: 'query', reading, updating, transactions: this.parseCallInTransactions(), with: null, next: null, returns: null, union: null };
    }
    const part = { kind: 'query' as const, reading, updating, transactions: null, with: null, next: null, returns: null, union: null };
    if (this.isKeyword('WITH')) {
      const clause = this.parseWith();
      if (this.peek().kind === 'eof' || this.isSymbol(';') || this.isKeyword('UNION')) {
        throw syntaxProblem(this.source, this.peek().offset, 'a query cannot end with WITH; end it with RETURN or an update clause.');
      }
      return { ...part, with: clause, next: this.parsePart() };
    }
    if (this.isKeyword('RETURN')) return { ...part, returns: this.parseReturn() };
    if (isStandaloneCall(reading)) return part;
    if (reading.length === 0 && updating.length === 0) this.fail(CLAUSE_START);
    if (updating.length === 0 && !endsWithUnitSubquery(reading)) {
      throw syntaxProblem(this.source, this.peek().offset, 'a query must end with RETURN or an update clause (CREATE, MERGE, SET, REMOVE, DELETE, FOREACH).');
    }
    return part;
  }

  /** `CALL {` of a subquery that runs per row: one whose closing brace IN TRANSACTIONS does not follow. */
  private isSubqueryCallStart(): boolean {
    if (!this.isKeyword('CALL') || !this.isSymbol('{', 1)) return false;
    let depth = 0;
    for (let k = 1; ; k++) {
      const t = this.peek(k);
      if (t.kind === 'eof') return true;
      if (t.kind !== 'symbol') continue;
      if (t.text === '{') depth++;
      else if (t.text === '}' && --depth === 0) return !this.isKeyword('IN', k + 1);
    }
  }

  /** `CALL { body }`: the body a whole statement (UNION included), run per row (ast.ts SubqueryCallClause). */
  private parseSubqueryCall(): SubqueryCallClause {
    const start = this.expectKeyword('CALL');
    this.enter();
    this.advance();
    const body = this.parseUnion();
    this.expectSymbol('}', "'}' after the CALL subquery");
    this.leave();
    return { kind: 'subqueryCall', body, offset: start.offset };
  }

  /** `CALL { body } IN TRANSACTIONS [OF n ROWS]`, the last clause of its statement. */
  private parseCallInTransactions(): CallInTransactions {
    const start = this.expectKeyword('CALL');
    if (!this.isSymbol('{')) throw unsupported(this.source, start.offset, 'CALL of a procedure');
    this.enter();
    this.advance();
    const body = this.parsePart();
    let last = body;
    while (last.next !== null) last = last.next;
    if (last.returns !== null || body.union !== null) throw unsupported(this.source, start.offset, 'a CALL { … } IN TRANSACTIONS subquery that returns rows (RETURN or UNION inside it)');
    this.expectSymbol('}', "'}' after the CALL subquery");
    this.leave();
    if (!this.isKeyword('IN')) throw unsupported(this.source, start.offset, 'a CALL { … } subquery outside IN TRANSACTIONS');
    this.advance();
    this.expectKeyword('TRANSACTIONS', 'TRANSACTIONS after IN');
    let rows: Expr | null = null;
    if (this.acceptKeyword('OF')) {
      rows = this.parseExpression();
      if (!this.acceptKeyword('ROWS')) this.expectKeyword('ROW', 'ROWS after the batch size');
    }
    if (this.peek().kind !== 'eof' && !this.isSymbol(';')) throw unsupported(this.source, this.peek().offset, 'a clause after CALL { … } IN TRANSACTIONS');
    return { body, rows, offset: start.offset };
  }

  private parseUpdatingClause(): UpdatingClause | null {
    if (this.isKeyword('CREATE')) return this.parseCreate();
    if (this.isKeyword('MERGE')) return this.parseMerge();
    if (this.isKeyword('SET')) return this.parseSet();
    if (this.isKeyword('REMOVE')) return this.parseRemove();
    if (this.isKeyword('DELETE') || this.isKeyword('DETACH')) return this.parseDelete();
    if (this.isKeyword('FOREACH')) return this.parseForeach();
    return null;
  }

  private parseUnwind(): UnwindClause {
    const start = this.expectKeyword('UNWIND');
    const list = this.parseExpression();
    this.expectKeyword('AS', 'AS after the list UNWIND reads');
    return { kind: 'unwind', list, variable: this.parseVariable(), offset: start.offset };
  }

  private parseMerge(): MergeClause {
    const start = this.expectKeyword('MERGE');
    const pattern = this.parsePattern();
    for (const step of pattern.steps) {
      if (step.rel.types.length !== 1) throw syntaxProblem(this.source, step.rel.offset, 'a relationship in MERGE needs exactly one type, like -[:KNOWS]->.');
    }
    const onCreate: SetItem[] = [];
    const onMatch: SetItem[] = [];
    while (this.isKeyword('ON')) {
      this.advance();
      const create = this.acceptKeyword('CREATE');
      if (!create) this.expectKeyword('MATCH', 'CREATE or MATCH after ON');
      this.expectKeyword('SET', `SET after ON ${create ? 'CREATE' : 'MATCH'}`);
      (create ? onCreate : onMatch).push(...this.parseSetItems());
    }
    return { kind: 'merge', pattern, onCreate, onMatch, offset: start.offset };
  }

  private parseForeach(): ForeachClause {
    const start = this.expectKeyword('FOREACH');
    this.expectSymbol('(');
    const variable = this.parseVariable();
    this.expectKeyword('IN', 'IN after the FOREACH variable');
    const list = this.parseExpression();
    this.expectSymbol('|', "'|' before FOREACH's update clauses");
    const updates: UpdatingClause[] = [];
    for (;;) {
      const clause = this.parseUpdatingClause();
      if (clause === null) break;
      updates.push(clause);
    }
    if (updates.length === 0) this.fail('an update clause (CREATE, MERGE, SET, REMOVE, DELETE, FOREACH) inside FOREACH');
    this.expectSymbol(')', "')' after FOREACH's update clauses");
    return { kind: 'foreach', variable, list, updates, offset: start.offset };
  }

  private parseWith(): WithClause {
    const start = this.expectKeyword('WITH');
    const body = this.parseProjectionBody('WITH');
    for (const item of body.items) {
      if (!item.aliased && item.expr.kind !== 'variable') {
        throw syntaxProblem(this.source, item.expr.offset, `the expression '${item.name}' in WITH needs an alias (… AS name).`);
      }
    }
    let where: Expr | null = null;
    if (this.acceptKeyword('WHERE')) where = this.parseExpression();
    return { kind: 'with', ...body, where, offset: start.offset };
  }

  private rejectUnsupportedClause(): void {
    const t = this.peek();
    if (t.kind === 'ident' && UNSUPPORTED_CLAUSES.has(t.text.toUpperCase())) {
      throw unsupported(this.source, t.offset, `the ${t.text.toUpperCase()} clause`);
    }
  }

  private parseMatch(): MatchClause {
    const start = this.peek();
    const optional = this.acceptKeyword('OPTIONAL');
    this.expectKeyword('MATCH');
    const patterns = this.parsePatternList();
    let where: Expr | null = null;
    if (this.acceptKeyword('WHERE')) where = this.parseExpression();
    return { kind: 'match', optional, patterns, where, offset: start.offset };
  }

  private parseCreate(): CreateClause {
    const start = this.expectKeyword('CREATE');
    const patterns = this.parsePatternList();
    for (const pattern of patterns) {
      for (const step of pattern.steps) {
        if (step.rel.types.length !== 1) {
          throw syntaxProblem(this.source, step.rel.offset, 'a relationship in CREATE needs exactly one type, like -[:KNOWS]->.');
        }
        if (step.rel.direction === 'both') {
          throw syntaxProblem(this.source, step.rel.offset, 'a relationship in CREATE needs a direction (-> or <-).');
        }
      }
    }
    return { kind: 'create', patterns, offset: start.offset };
  }

  private parseSet(): SetClause {
    const start = this.expectKeyword('SET');
    return { kind: 'set', items: this.parseSetItems(), offset: start.offset };
  }

  private parseSetItems(): SetItem[] {
    const items: SetItem[] = [];
    do {
      const at = this.peek();
      const variable = this.parseVariable();
      if (this.acceptSymbol('.')) {
        const key = this.parseName('a property name');
        if (this.isSymbol('.')) throw unsupported(this.source, this.peek().offset, 'SET on a nested property');
        this.expectSymbol('=', "'='");
        items.push({ kind: 'setProperty', variable, key, value: this.parseExpression(), offset: at.offset });
      } else if (this.acceptSymbol('=')) {
        items.push({ kind: 'setProperties', variable, merge: false, value: this.parseExpression(), offset: at.offset });
      } else if (this.acceptSymbol('+=')) {
        items.push({ kind: 'setProperties', variable, merge: true, value: this.parseExpression(), offset: at.offset });
      } else if (this.isSymbol(':')) {
        throw unsupported(this.source, this.peek().offset, 'SET of a label (a node has exactly one label)', 'a node with several labels');
      } else {
        this.fail("'.', '=' or '+=' after the variable");
      }
    } while (this.acceptSymbol(','));
    return items;
  }

  private parseRemove(): RemoveClause {
    const start = this.expectKeyword('REMOVE');
    const items: { variable: string; key: string; offset: number }[] = [];
    do {
      const at = this.peek();
      const variable = this.parseVariable();
      if (this.isSymbol(':')) throw unsupported(this.source, this.peek().offset, 'REMOVE of a label (a node has exactly one label)', 'a node without a label');
      this.expectSymbol('.', "'.' and a property name");
      const key = this.parseName('a property name');
      items.push({ variable, key, offset: at.offset });
    } while (this.acceptSymbol(','));
    return { kind: 'remove', items, offset: start.offset };
  }

  private parseDelete(): DeleteClause {
    const start = this.peek();
    const detach = this.acceptKeyword('DETACH');
    this.expectKeyword('DELETE', detach ? 'DELETE after DETACH' : 'DELETE');
    const targets: Expr[] = [];
    do targets.push(this.parseExpression());
    while (this.acceptSymbol(','));
    return { kind: 'delete', detach, targets, offset: start.offset };
  }

  private parseReturn(): ReturnClause {
    const start = this.expectKeyword('RETURN');
    return { kind: 'return', ...this.parseProjectionBody('RETURN'), offset: start.offset };
  }

  /** What RETURN and WITH share: `[DISTINCT] items|* [ORDER BY ...] [SKIP n] [LIMIT n]`. */
  private parseProjectionBody(clause: 'RETURN' | 'WITH'): Omit<ReturnClause, 'kind' | 'offset'> {
    const distinct = this.acceptKeyword('DISTINCT');
    const items: ReturnItem[] = [];
    let star = false;
    if (this.acceptSymbol('*')) star = true;
    else {
      const names = new Set<string>();
      do {
        const item = this.parseReturnItem();
        if (names.has(item.name)) throw syntaxProblem(this.source, item.expr.offset, `the column name '${item.name}' is used twice in ${clause}; give one an alias with AS.`);
        names.add(item.name);
        items.push(item);
      } while (this.acceptSymbol(','));
    }
    const orderBy: SortItem[] = [];
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY', 'BY after ORDER');
      do {
        const expr = this.withAggregates(() => this.parseExpression());
        let descending = false;
        if (this.acceptKeyword('DESC') || this.acceptKeyword('DESCENDING')) descending = true;
        else if (this.acceptKeyword('ASC') || this.acceptKeyword('ASCENDING')) descending = false;
        orderBy.push({ expr, descending });
      } while (this.acceptSymbol(','));
    }
    let skip: Expr | null = null;
    let limit: Expr | null = null;
    if (this.acceptKeyword('SKIP')) skip = this.parseExpression();
    if (this.acceptKeyword('LIMIT')) limit = this.parseExpression();
    return { distinct, star, items, orderBy, skip, limit };
  }

  private parseReturnItem(): ReturnItem {
    const first = this.peek();
    const expr = this.withAggregates(() => this.parseExpression());
    const text = this.source.slice(first.offset, this.lastEnd());
    if (this.acceptKeyword('AS')) {
      const name = this.parseVariableLikeName();
      return { expr, name, aliased: true };
    }
    return { expr, name: text, aliased: false };
  }

  private parseVariableLikeName(): string {
    const t = this.peek();
    if (t.kind === 'quoted' || t.kind === 'ident') {
      this.pos++;
      return t.text;
    }
    return this.fail('a column name after AS');
  }

  private withAggregates<T>(parse: () => T): T {
    const saved = this.context;
    this.context = { aggregates: true };
    try {
      return parse();
    } finally {
      this.context = saved;
    }
  }

  private withoutAggregates<T>(parse: () => T): T {
    const saved = this.context;
    this.context = { aggregates: false };
    try {
      return parse();
    } finally {
      this.context = saved;
    }
  }

  // ---- patterns ----

  private parsePatternList(): Pattern[] {
    const patterns: Pattern[] = [];
    do patterns.push(this.parsePattern());
    while (this.acceptSymbol(','));
    return patterns;
  }

  private parsePattern(): Pattern {
    if (this.isVariableStart() && this.isSymbol('=', 1)) {
      const path = this.advance().text;
      this.advance();
      return { path, ...this.parseUnnamedPattern() };
    }
    return this.parseUnnamedPattern();
  }

  private parseUnnamedPattern(): Pattern {
    const t = this.peek();
    if (t.kind === 'ident' && this.isSymbol('(', 1)) {
      const fn = t.text.toLowerCase();
      if (fn === 'shortestpath' || fn === 'allshortestpaths') return this.parseShortestPath(fn === 'shortestpath' ? 'one' : 'all');
      throw unsupported(this.source, t.offset, `the path function ${t.text}()`);
    }
    const start = this.parseNodePattern();
    const steps: PatternStep[] = [];
    while (this.isRelStart()) {
      const rel = this.parseRelPattern();
      const node = this.parseNodePattern();
      steps.push({ rel, node });
    }
    return { start, steps, offset: start.offset };
  }

  /** `shortestPath((a)-[*]-(b))`: one relationship between two nodes, of at least 0 or 1 hops (as Cypher allows). */
  private parseShortestPath(shortest: 'one' | 'all'): Pattern {
    const name = this.advance();
    const open = this.expectSymbol('(', "'(' after the path function");
    this.enter(open);
    const inner = this.parseUnnamedPattern();
    this.expectSymbol(')', `')' to close ${name.text}()`);
    this.leave();
    const step = inner.steps[0];
    if (step === undefined || inner.steps.length > 1) throw syntaxProblem(this.source, name.offset, `${name.text}() takes a pattern of exactly one relationship, like (a)-[*]-(b).`);
    if (step.rel.length !== undefined && step.rel.length.min > 1) {
      throw syntaxProblem(this.source, step.rel.offset, `${name.text}() finds paths of the shortest length; a minimal length other than 0 or 1 is not allowed.`);
    }
    return { ...inner, shortest, offset: name.offset };
  }

  private isRelStart(k = 0): boolean {
    return this.isSymbol('-', k) || (this.isSymbol('<', k) && this.isSymbol('-', k + 1));
  }

  private parseNodePattern(): NodePattern {
    const open = this.expectSymbol('(', "'(' to start a node pattern");
    this.enter(open);
    let variable: string | null = null;
    let label: string | null = null;
    let properties: Expr | null = null;
    if (this.isVariableStart()) variable = this.advance().text;
    if (this.acceptSymbol(':')) {
      label = this.parseName('a label name after :');
      if (this.isSymbol(':') || this.isSymbol('|') || this.isSymbol('&')) {
        throw unsupported(this.source, this.peek().offset, 'more than one label on a node pattern (a node has exactly one label)', 'a node with several labels');
      }
    }
    if (this.isSymbol('{')) properties = this.withoutAggregates(() => this.parseMapLiteral());
    else if (this.peek().kind === 'parameter') {
      const p = this.advance();
      properties = { kind: 'parameter', name: p.text, offset: p.offset };
    }
    if (this.isKeyword('WHERE')) throw unsupported(this.source, this.peek().offset, 'WHERE inside a node pattern');
    this.expectSymbol(')', variable === null && label === null && properties === null ? "a variable, ':' and a label, a property map, or ')'" : "')' to close the node pattern");
    this.leave();
    return { kind: 'node', variable, label, properties, offset: open.offset };
  }

  private parseRelPattern(): RelPattern {
    const start = this.peek();
    const leftArrow = this.acceptSymbol('<');
    this.expectSymbol('-', "'-'");
    let variable: string | null = null;
    const types: string[] = [];
    let length: { min: number; max: number | null } | undefined;
    if (this.isSymbol('[')) {
      const open = this.advance();
      this.enter(open);
      if (this.isVariableStart()) variable = this.advance().text;
      if (this.acceptSymbol(':')) {
        types.push(this.parseName('a relationship type after :'));
        while (this.acceptSymbol('|')) {
          this.acceptSymbol(':');
          types.push(this.parseName('a relationship type after |'));
        }
      }
      if (this.acceptSymbol('*')) length = this.parseHopRange();
      if (this.isSymbol('{') || this.peek().kind === 'parameter') {
        throw unsupported(this.source, this.peek().offset, 'a property map on a relationship (edges carry no properties)', 'a relationship with properties');
      }
      if (this.isKeyword('WHERE')) throw unsupported(this.source, this.peek().offset, 'WHERE inside a relationship pattern');
      this.expectSymbol(']', "']' to close the relationship pattern");
      this.leave();
    }
    this.expectSymbol('-', "'-' to finish the relationship");
    const rightArrow = this.acceptSymbol('>');
    const direction: Direction = leftArrow === rightArrow ? 'both' : leftArrow ? 'in' : 'out';
    return length === undefined ? { kind: 'rel', variable, types, direction, offset: start.offset } : { kind: 'rel', variable, types, direction, length, offset: start.offset };
  }

  /** After `*`: nothing (1..unbounded), `n` (exactly n), `n..`, `..m` or `n..m` hops. */
  private parseHopRange(): { min: number; max: number | null } {
    const bound = (): number | null => {
      const t = this.peek();
      if (t.kind !== 'number') return null;
      if (!/^[0-9]+$/.test(t.text)) throw syntaxError(this.source, t.offset, 'a whole number of hops', t.text);
      this.advance();
      return Number(t.text);
    };
    const min = bound();
    if (!this.acceptSymbol('..')) return min === null ? { min: 1, max: null } : { min, max: min };
    // An upper bound below the lower one (`*2..1`) is an empty range: it matches nothing, as in Cypher.
    return { min: min ?? 1, max: bound() };
  }

  // ---- expressions ----

  parseExpression(): Expr {
    return this.parseOr();
  }

  private parseChain(kind: 'or' | 'xor' | 'and', keyword: string, next: () => Expr): Expr {
    const first = next();
    if (!this.isKeyword(keyword)) return first;
    const operands = [first];
    while (this.acceptKeyword(keyword)) operands.push(next());
    return { kind, operands, offset: first.offset };
  }

  private parseOr(): Expr {
    return this.parseChain('or', 'OR', () => this.parseXor());
  }

  private parseXor(): Expr {
    return this.parseChain('xor', 'XOR', () => this.parseAnd());
  }

  private parseAnd(): Expr {
    return this.parseChain('and', 'AND', () => this.parseNot());
  }

  private parseNot(): Expr {
    if (this.isKeyword('NOT')) {
      const t = this.advance();
      this.enter(t);
      const operand = this.parseNot();
      this.leave();
      return { kind: 'not', operand, offset: t.offset };
    }
    return this.parseComparison();
  }

  private comparisonOp(): ComparisonOp | null {
    const t = this.peek();
    if (t.kind !== 'symbol') return null;
    switch (t.text) {
      case '=': case '<>': case '<': case '<=': case '>': case '>=':
        return t.text;
      case '!=':
        throw syntaxError(this.source, t.offset, "'<>' for inequality", '!=');
      default:
        return null;
    }
  }

  private parseComparison(): Expr {
    const first = this.parsePredicates();
    let op = this.comparisonOp();
    if (op === null) return first;
    const rest: { op: ComparisonOp; expr: Expr }[] = [];
    while (op !== null) {
      this.advance();
      rest.push({ op, expr: this.parsePredicates() });
      op = this.comparisonOp();
    }
    return { kind: 'comparison', first, rest, offset: first.offset };
  }

  /** `IS [NOT] NULL`, `IN`, `STARTS WITH`, `ENDS WITH`, `CONTAINS` suffixes. */
  private parsePredicates(): Expr {
    let expr = this.parseAdditive();
    let levels = 0;
    for (;;) {
      const t = this.peek();
      if (this.isKeyword('IS')) {
        this.advance();
        const negated = this.acceptKeyword('NOT');
        this.expectKeyword('NULL', negated ? 'NULL after IS NOT' : 'NULL or NOT NULL after IS');
        expr = { kind: 'isNull', operand: expr, negated, offset: expr.offset };
      } else if (this.isKeyword('IN')) {
        this.advance();
        expr = { kind: 'in', element: expr, list: this.parseAdditive(), offset: expr.offset };
      } else if (this.isKeyword('STARTS') || this.isKeyword('ENDS')) {
        const word = this.advance().text.toUpperCase();
        this.expectKeyword('WITH', `WITH after ${word}`);
        expr = { kind: 'string', op: word === 'STARTS' ? 'STARTS WITH' : 'ENDS WITH', left: expr, right: this.parseAdditive(), offset: expr.offset };
      } else if (this.isKeyword('CONTAINS')) {
        this.advance();
        expr = { kind: 'string', op: 'CONTAINS', left: expr, right: this.parseAdditive(), offset: expr.offset };
      } else if (t.kind === 'symbol' && t.text === '=~') {
        this.advance();
        expr = { kind: 'regex', left: expr, right: this.parseAdditive(), offset: expr.offset };
      } else break;
      // Each suffix wraps the tree one level deeper; count it so chains stay within the nesting limit.
      this.enter(t);
      levels++;
    }
    this.leave(levels);
    return expr;
  }

  private parseArithmetic(ops: readonly string[], next: () => Expr): Expr {
    const first = next();
    const rest: { op: ArithmeticOp; expr: Expr }[] = [];
    while (this.peek().kind === 'symbol' && ops.includes(this.peek().text)) {
      const op = this.advance().text as ArithmeticOp;
      rest.push({ op, expr: next() });
    }
    if (rest.length === 0) return first;
    return { kind: 'arithmetic', first, rest, offset: first.offset };
  }

  private parseAdditive(): Expr {
    return this.parseArithmetic(['+', '-'], () => this.parseMultiplicative());
  }

  private parseMultiplicative(): Expr {
    return this.parseArithmetic(['*', '/', '%'], () => this.parsePower());
  }

  private parsePower(): Expr {
    return this.parseArithmetic(['^'], () => this.parseUnary());
  }

  private parseUnary(): Expr {
    if (this.isSymbol('-') || this.isSymbol('+')) {
      const t = this.advance();
      this.enter(t);
      const operand = this.parseUnary();
      this.leave();
      return t.text === '-' ? { kind: 'negate', operand, offset: t.offset } : operand;
    }
    return this.parsePostfix();
  }

  private parsePostfix(): Expr {
    let expr = this.parseAtom();
    let levels = 0;
    for (;;) {
      const t = this.peek();
      if (this.isSymbol('.')) {
        this.advance();
        const key = this.parseName('a property name after .');
        if (this.isSymbol('(')) {
          if (expr.kind === 'variable' && TEMPORAL_FUNCTIONS.has(expr.name.toLowerCase())) {
            throw unsupported(this.source, expr.offset, `the temporal function ${expr.name}.${key}()`, 'a temporal value');
          }
          throw unsupported(this.source, t.offset, 'a namespaced function call');
        }
        expr = { kind: 'property', target: expr, key, offset: expr.offset };
      } else if (this.isSymbol('[')) {
        this.advance();
        this.enter(t);
        const index = this.isSymbol('..') ? null : this.parseExpression();
        if (this.acceptSymbol('..')) {
          const to = this.isSymbol(']') ? null : this.parseExpression();
          this.expectSymbol(']', "']' to close the slice");
          this.leave();
          expr = { kind: 'slice', target: expr, from: index, to, offset: expr.offset };
        } else {
          this.expectSymbol(']', "'..' or ']' to close the index");
          this.leave();
          expr = { kind: 'index', target: expr, index: index!, offset: expr.offset };
        }
      } else if (this.isSymbol(':') && expr.kind === 'variable') {
        this.advance();
        const label = this.parseName('a label name after :');
        expr = { kind: 'hasLabel', target: expr, label, offset: expr.offset };
      } else break;
      this.enter(t);
      levels++;
    }
    this.leave(levels);
    return expr;
  }

  private parseAtom(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'number':
        this.advance();
        return { kind: 'literal', value: t.value, offset: t.offset };
      case 'string':
        this.advance();
        return { kind: 'literal', value: t.text, offset: t.offset };
      case 'parameter':
        this.advance();
        return { kind: 'parameter', name: t.text, offset: t.offset };
      case 'quoted':
        this.advance();
        return this.afterVariable(t);
      case 'ident':
        return this.parseIdentAtom(t);
      case 'symbol':
        if (t.text === '(') return this.parseParenthesised(t);
        if (t.text === '[') return this.parseListOrComprehension(t);
        if (t.text === '{') return this.parseMapLiteral();
        return this.fail('an expression');
      default:
        return this.fail('an expression');
    }
  }

  private parseIdentAtom(t: Token): Expr {
    const upper = t.text.toUpperCase();
    if (upper === 'TRUE' || upper === 'FALSE') {
      this.advance();
      return { kind: 'literal', value: upper === 'TRUE', offset: t.offset };
    }
    if (upper === 'NULL') {
      this.advance();
      return { kind: 'literal', value: null, offset: t.offset };
    }
    if (upper === 'CASE') return this.parseCase(t);
    if ((upper === 'EXISTS' || upper === 'COUNT') && this.isSymbol('{', 1)) return this.parseSubqueryExpression(t);
    if (upper === 'COLLECT' && this.isSymbol('{', 1)) throw unsupported(this.source, t.offset, 'COLLECT subqueries');
    if ((upper === 'ALL' || upper === 'ANY' || upper === 'NONE' || upper === 'SINGLE') && this.isSymbol('(', 1)) return this.parseQuantifier(t);
    if (upper === 'REDUCE' && this.isSymbol('(', 1)) return this.parseReduce(t);
    if (this.isSymbol('(', 1)) return this.parseCall(t);
    if (RESERVED.has(upper)) return this.fail('an expression');
    this.advance();
    return this.afterVariable(t);
  }

  /** A variable, or a map projection when a `{` follows it. */
  private afterVariable(t: Token): Expr {
    if (!this.isSymbol('{')) return { kind: 'variable', name: t.text, offset: t.offset };
    const open = this.advance();
    this.enter(open);
    const items: ProjectionItem[] = [];
    if (!this.isSymbol('}')) {
      do {
        if (this.acceptSymbol('.')) {
          if (this.acceptSymbol('*')) items.push({ kind: 'allProperties' });
          else items.push({ kind: 'propertySelector', key: this.parseName("a property name or '*' after .") });
        } else if (this.peek().kind === 'ident' || this.peek().kind === 'quoted') {
          const name = this.advance();
          if (this.acceptSymbol(':')) items.push({ kind: 'literalEntry', key: name.text, value: this.parseExpression() });
          else {
            if (name.kind === 'ident' && RESERVED.has(name.text.toUpperCase())) this.fail("':' after the key", this.peek());
            items.push({ kind: 'variableSelector', name: name.text });
          }
        } else this.fail("'.property', '.*', 'key: expression' or a variable in the map projection");
      } while (this.acceptSymbol(','));
    }
    this.expectSymbol('}', "',' or '}' in the map projection");
    this.leave();
    return { kind: 'mapProjection', variable: t.text, items, offset: t.offset };
  }

  private parseCall(nameToken: Token): Expr {
    const name = nameToken.text.toLowerCase();
    const spec = functionSpec(name);
    if (spec === undefined && TEMPORAL_FUNCTIONS.has(name)) throw unsupported(this.source, nameToken.offset, `the temporal function ${nameToken.text}()`, 'a temporal value');
    if (spec === undefined) throw unsupported(this.source, nameToken.offset, `the function ${nameToken.text}()`);
    if (spec.aggregate && !this.context.aggregates) {
      throw syntaxProblem(this.source, nameToken.offset, `the aggregate ${nameToken.text}() is only allowed in RETURN and ORDER BY, and not inside another aggregate or a comprehension.`);
    }
    this.advance();
    const open = this.expectSymbol('(');
    this.enter(open);
    const run = spec.aggregate ? this.withoutAggregates.bind(this) : <T>(f: () => T): T => f();
    const result = run(() => {
      let distinct = false;
      let star = false;
      const args: Expr[] = [];
      if (spec.aggregate && this.acceptKeyword('DISTINCT')) distinct = true;
      if (name === 'count' && !distinct && this.acceptSymbol('*')) star = true;
      else if (!this.isSymbol(')')) {
        do args.push(this.parseExpression());
        while (this.acceptSymbol(','));
      }
      this.expectSymbol(')', "',' or ')' to close the call");
      const given = star ? 1 : args.length;
      if (given < spec.minArgs || given > spec.maxArgs) {
        const wanted = spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : spec.maxArgs > 100 ? `at least ${spec.minArgs}` : `${spec.minArgs} to ${spec.maxArgs}`;
        throw syntaxProblem(this.source, nameToken.offset, `${nameToken.text}() takes ${wanted} argument${wanted === '1' ? '' : 's'}, got ${given}.`);
      }
      return { kind: 'call' as const, name, distinct, star, args, offset: nameToken.offset };
    });
    this.leave();
    return result;
  }

  private parseParenthesised(open: Token): Expr {
    // A parenthesised node followed by a relationship is a pattern predicate; the matched closer
    // makes this a constant-time decision, so no backtracking is ever needed.
    const close = this.closers[this.pos] ?? -1;
    if (close !== -1 && this.relStartsAt(close + 1)) {
      this.enter(open);
      const pattern = this.withoutAggregates(() => this.parsePattern());
      this.leave();
      return { kind: 'patternPredicate', pattern, offset: open.offset };
    }
    this.advance();
    this.enter(open);
    const inner = this.parseExpression();
    this.expectSymbol(')', "')' to close the parenthesis");
    this.leave();
    return inner;
  }

  private relStartsAt(index: number): boolean {
    const at = (k: number, text: string): boolean => {
      const t = this.tokens[index + k];
      return t !== undefined && t.kind === 'symbol' && t.text === text;
    };
    return (at(0, '-') && (at(1, '-') || at(1, '['))) || (at(0, '<') && at(1, '-') && (at(2, '-') || at(2, '[')));
  }

  private parseListOrComprehension(open: Token): Expr {
    if (this.isVariableStart(1) && this.isKeyword('IN', 2)) return this.parseListComprehension(open);
    if (this.isVariableStart(1) && this.isSymbol('=', 2) && this.isSymbol('(', 3)) {
      const close = this.closers[this.pos + 3] ?? -1;
      if (close !== -1 && this.relStartsAt(close + 1)) return this.parsePatternComprehension(open);
    }
    if (this.isSymbol('(', 1)) {
      const close = this.closers[this.pos + 1] ?? -1;
      if (close !== -1 && this.relStartsAt(close + 1)) return this.parsePatternComprehension(open);
    }
    this.advance();
    this.enter(open);
    const items: Expr[] = [];
    if (!this.isSymbol(']')) {
      do items.push(this.parseExpression());
      while (this.acceptSymbol(','));
    }
    this.expectSymbol(']', "',' or ']' in the list");
    this.leave();
    return { kind: 'list', items, offset: open.offset };
  }

  private parsePatternComprehension(open: Token): Expr {
    this.advance();
    this.enter(open);
    const result = this.withoutAggregates(() => {
      const pattern = this.parsePattern();
      let where: Expr | null = null;
      if (this.acceptKeyword('WHERE')) where = this.parseExpression();
      this.expectSymbol('|', where === null ? "WHERE or '|' in the pattern comprehension" : "'|' in the pattern comprehension");
      const projection = this.parseExpression();
      this.expectSymbol(']', "']' to close the pattern comprehension");
      return { kind: 'patternComprehension' as const, pattern, where, projection, offset: open.offset };
    });
    this.leave();
    return result;
  }

  /** `[x IN list [WHERE pred] [| projection]]`: the list is read in the enclosing scope, the rest with x bound. */
  private parseListComprehension(open: Token): Expr {
    this.advance();
    this.enter(open);
    const variable = this.parseVariable();
    this.expectKeyword('IN');
    const list = this.parseExpression();
    const result = this.withoutAggregates(() => {
      const where = this.acceptKeyword('WHERE') ? this.parseExpression() : null;
      const projection = this.acceptSymbol('|') ? this.parseExpression() : null;
      this.expectSymbol(']', projection !== null ? "']' to close the list comprehension" : where !== null ? "'|' or ']' in the list comprehension" : "WHERE, '|' or ']' in the list comprehension");
      return { kind: 'listComprehension' as const, variable, list, where, projection, offset: open.offset };
    });
    this.leave();
    return result;
  }

  /** `all(x IN list WHERE pred)`, `any`, `none`, `single`: the predicate is required. */
  private parseQuantifier(name: Token): Expr {
    const quantifier = name.text.toLowerCase() as Quantifier;
    this.advance();
    const open = this.expectSymbol('(');
    this.enter(open);
    const variable = this.parseVariable();
    this.expectKeyword('IN', `IN after the variable of ${name.text}()`);
    const list = this.parseExpression();
    this.expectKeyword('WHERE', `WHERE and a predicate in ${name.text}()`);
    const where = this.withoutAggregates(() => this.parseExpression());
    this.expectSymbol(')', `')' to close ${name.text}()`);
    this.leave();
    return { kind: 'quantifier', quantifier, variable, list, where, offset: name.offset };
  }

  /** `reduce(acc = init, x IN list | body)`: init and list in the enclosing scope, body with acc and x bound. */
  private parseReduce(name: Token): Expr {
    this.advance();
    const open = this.expectSymbol('(');
    this.enter(open);
    const at = this.peek();
    const accumulator = this.parseVariable();
    this.expectSymbol('=', "'=' and the accumulator's first value in reduce()");
    const init = this.parseExpression();
    this.expectSymbol(',', "',' after the accumulator's first value in reduce()");
    const variable = this.parseVariable();
    if (variable === accumulator) throw syntaxProblem(this.source, at.offset, `reduce() needs different names for its accumulator and its variable, not \`${variable}\` twice.`);
    this.expectKeyword('IN', 'IN after the variable of reduce()');
    const list = this.parseExpression();
    this.expectSymbol('|', "'|' and the expression of reduce()");
    const body = this.withoutAggregates(() => this.parseExpression());
    this.expectSymbol(')', "')' to close reduce()");
    this.leave();
    return { kind: 'reduce', accumulator, init, variable, list, body, offset: name.offset };
  }

  /**
   * `EXISTS { [MATCH] patterns [WHERE ...] [RETURN items] }` and `COUNT { ... }`: one MATCH's worth of
   * patterns. A RETURN changes neither answer unless it aggregates or de-duplicates, which is refused;
   * other clauses in the body are refused by name.
   */
  private parseSubqueryExpression(name: Token): Expr {
    const word = name.text.toUpperCase();
    const kind = word === 'EXISTS' ? 'existsSubquery' as const : 'countSubquery' as const;
    this.advance();
    const open = this.expectSymbol('{');
    this.enter(open);
    const result = this.withoutAggregates(() => {
      if (!this.isSymbol('(')) {
        this.acceptKeyword('MATCH');
        if (!this.isSymbol('(')) this.refuseInSubquery(word, "a pattern or MATCH and a pattern");
      }
      const patterns = this.parsePatternList();
      const where = this.acceptKeyword('WHERE') ? this.parseExpression() : null;
      const returns: Expr[] = [];
      if (this.isKeyword('RETURN')) {
        this.advance();
        if (this.isKeyword('DISTINCT')) throw unsupported(this.source, this.peek().offset, `RETURN DISTINCT inside ${word} { ... }`);
        if (!this.acceptSymbol('*')) {
          do {
            const item = this.parseReturnItem().expr;
            if (containsAggregate(item)) throw unsupported(this.source, item.offset, `an aggregate in the RETURN of ${word} { ... }`);
            returns.push(item);
          } while (this.acceptSymbol(','));
        }
        if (!this.isSymbol('}')) this.refuseInSubquery(word, `',' or '}' after RETURN in ${word} { ... }`);
      }
      if (!this.isSymbol('}')) this.refuseInSubquery(word, where === null ? `WHERE, RETURN or '}' in ${word} { ... }` : `RETURN or '}' in ${word} { ... }`);
      this.advance();
      return { kind, patterns, where, returns, offset: name.offset };
    });
    this.leave();
    return result;
  }

  /** Refuses a clause the subset does not run inside EXISTS/COUNT { ... }, or fails expecting `expected`. */
  private refuseInSubquery(word: string, expected: string): never {
    const t = this.peek();
    const clause = t.kind === 'ident' ? t.text.toUpperCase() : '';
    if (['CREATE', 'MERGE', 'SET', 'REMOVE', 'DELETE', 'DETACH', 'FOREACH'].includes(clause)) {
      throw syntaxProblem(this.source, t.offset, `${word} { ... } only reads: it cannot hold the update clause ${clause}.`);
    }
    if (['MATCH', 'OPTIONAL', 'WITH', 'UNWIND', 'CALL', 'UNION', 'RETURN', 'ORDER', 'SKIP', 'LIMIT'].includes(clause)) {
      const what = clause === 'MATCH' ? 'a second MATCH' : clause === 'OPTIONAL' ? 'OPTIONAL MATCH' : clause === 'RETURN' ? 'a second RETURN' : clause === 'ORDER' ? 'ORDER BY' : clause;
      throw unsupported(this.source, t.offset, `${what} inside ${word} { ... } (the subset runs one MATCH's patterns, a WHERE and a plain RETURN there)`);
    }
    return this.fail(expected);
  }

  /** `CASE [subject] WHEN a THEN x ... [ELSE y] END` (at least one WHEN). */
  private parseCase(open: Token): Expr {
    this.advance();
    this.enter(open);
    const subject = this.isKeyword('WHEN') ? null : this.parseExpression();
    const branches: CaseBranch[] = [];
    do {
      this.expectKeyword('WHEN', branches.length === 0 ? 'WHEN in the CASE expression' : 'WHEN, ELSE or END in the CASE expression');
      const when = this.parseExpression();
      this.expectKeyword('THEN', 'THEN after the WHEN condition');
      // biome-ignore lint/suspicious/noThenProperty: a CASE branch is named after Cypher's WHEN … THEN; its `then` is an expression, never a function, so awaiting a branch could not call it.
      branches.push({ when, then: this.parseExpression() });
    } while (this.isKeyword('WHEN'));
    const otherwise = this.acceptKeyword('ELSE') ? this.parseExpression() : null;
    this.expectKeyword('END', branches.length > 0 && otherwise === null ? 'WHEN, ELSE or END in the CASE expression' : 'END to close the CASE expression');
    this.leave();
    return { kind: 'case', subject, branches, otherwise, offset: open.offset };
  }

  private parseMapLiteral(): Expr {
    const open = this.expectSymbol('{');
    this.enter(open);
    const entries: MapEntry[] = [];
    const keys = new Set<string>();
    if (!this.isSymbol('}')) {
      do {
        const at = this.peek();
        const key = this.parseName('a map key');
        if (keys.has(key)) throw syntaxProblem(this.source, at.offset, `the map key '${key}' appears twice.`);
        keys.add(key);
        this.expectSymbol(':', "':' after the map key");
        entries.push({ key, value: this.parseExpression() });
      } while (this.acceptSymbol(','));
    }
    this.expectSymbol('}', "',' or '}' in the map");
    this.leave();
    return { kind: 'map', entries, offset: open.offset };
  }
}
