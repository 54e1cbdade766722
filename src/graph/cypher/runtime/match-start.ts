/** Where a pattern starts: a node bound by an earlier clause, or a paged scan of the candidates. */
import type { NodeRecord, Scalar } from '../../engine/index.ts';
import type { NodePattern } from '../language/ast.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { constantsHold, satisfies, type NodeConstraint } from './match-constraints.ts';
import { emptyPaths, type PathStart, type Paths } from './match-paths.ts';
import { CHUNK_ROWS, type Chunk } from './row-stream.ts';
import type { RunContext } from './run-context.ts';
import { EdgeRef, NodeRef } from './values.ts';

/** A start node already bound by an earlier clause or pattern: each row is kept when its node fits. */
export class BoundStart implements PathStart {
  readonly #node: NodePattern;
  readonly #slot: number;
  readonly #c: NodeConstraint;
  readonly #columns: number;
  readonly #ctx: RunContext;

  constructor(node: NodePattern, slot: number, c: NodeConstraint, columns: number, ctx: RunContext) {
    this.#node = node;
    this.#slot = slot;
    this.#c = c;
    this.#columns = columns;
    this.#ctx = ctx;
  }

  *run(chunk: Chunk): Generator<Paths, void, undefined> {
    if (this.#c.impossible) return;
    const ctx = this.#ctx;
    const out = emptyPaths(chunk, this.#columns);
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      const value = row[this.#slot]!;
      ctx.budget.tick();
      if (value === null) continue;
      if (!(value instanceof NodeRef)) throw runtimeError(`Variable \`${this.#node.variable}\` is used as a node but holds a ${value instanceof EdgeRef ? 'relationship' : 'value'}.`);
      const record = ctx.resolve(value);
      if (record !== null && satisfies(record, this.#c, row, ctx, true)) {
        out.parent.push(i);
        out.at.push(record);
        // Indexed: a for-of over an array inside a generator calls the array iterator's next() per item.
        for (let k = 0; k < out.cols.length; k++) out.cols[k]!.push(undefined);
      }
    }
    yield out;
  }
}

/** First page of a label scan; later pages grow, so a LIMIT reads little and a full scan few times. */
const FIRST_PAGE = 64;
const LAST_PAGE = 8192;

/** The candidates of an unbound start node, fetched page by page (keyset on id) as rows need them. */
class Candidates {
  readonly #list: NodeRecord[] = [];
  readonly #c: NodeConstraint;
  readonly #ctx: RunContext;
  readonly #filter: Record<string, Scalar> | undefined;
  #done = false;
  #page = FIRST_PAGE;
  #after: string | undefined;

  constructor(c: NodeConstraint, ctx: RunContext) {
    this.#c = c;
    this.#ctx = ctx;
    const filter: Record<string, Scalar> = {};
    let pushed = 0;
    for (const [key, v] of c.constants) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        filter[key] = v;
        pushed++;
      }
    }
    this.#filter = pushed > 0 ? filter : undefined;
    if (c.label === null) {
      // No label: a node by id, or every node; constants the lookup cannot take are checked here.
      const id = filter['id'];
      let found: readonly NodeRecord[];
      if (typeof id === 'string') {
        const node = ctx.view.node(id);
        found = node ? [node] : [];
      } else found = [...ctx.view.allNodes()];
      for (const record of found) if (constantsHold(record, c)) this.#list.push(record);
      this.#done = true;
    }
  }

  /** The i-th candidate, or undefined past the last. */
  at(i: number): NodeRecord | undefined {
    while (i >= this.#list.length && !this.#done) this.#fetch();
    return this.#list[i];
  }

  #fetch(): void {
    const options = { first: this.#page, ...(this.#filter ? { filter: this.#filter } : {}), ...(this.#after !== undefined ? { after: this.#after } : {}) };
    const page = this.#ctx.view.scan(this.#c.label!, options);
    for (const record of page) {
      // Constants the scan could not take (lists, say) are checked here.
      if (constantsHold(record, this.#c)) this.#list.push(record);
      else this.#ctx.budget.tick();
    }
    if (page.length < this.#page) this.#done = true;
    else this.#after = page[page.length - 1]!.id;
    this.#page = Math.min(LAST_PAGE, this.#page * 4);
  }
}

/** An unbound start node: every input row times every candidate, in id order. */
export class ScanStart implements PathStart {
  readonly #column: number;
  readonly #c: NodeConstraint;
  readonly #columns: number;
  readonly #ctx: RunContext;
  #candidates: Candidates | null = null;

  constructor(column: number, c: NodeConstraint, columns: number, ctx: RunContext) {
    this.#column = column;
    this.#c = c;
    this.#columns = columns;
    this.#ctx = ctx;
  }

  *run(chunk: Chunk): Generator<Paths, void, undefined> {
    const c = this.#c;
    if (c.impossible) return;
    const ctx = this.#ctx;
    const budget = ctx.budget;
    const column = this.#column;
    const columns = this.#columns;
    const candidates = (this.#candidates ??= new Candidates(c, ctx));
    const perRow = c.perRow.length > 0;
    // Pieces grow (64, 256, 1024 paths): a LIMIT met early stops after a small first piece.
    let piece = FIRST_PAGE;
    let out = emptyPaths(chunk, columns);
    for (let i = 0; i < chunk.rows.length; i++) {
      const row = chunk.rows[i]!;
      for (let j = 0; ; j++) {
        const record = candidates.at(j);
        if (record === undefined) break;
        if (perRow && !satisfies(record, c, row, ctx, false)) {
          budget.tick();
          if (budget.yieldDue) {
            yield out;
            out = emptyPaths(chunk, columns);
          }
          continue;
        }
        budget.addRows(1);
        out.parent.push(i);
        out.at.push(record);
        for (let k = 0; k < columns; k++) out.cols[k]!.push(k === column ? new NodeRef(record) : undefined);
        if (out.parent.length >= piece || budget.yieldDue) {
          yield out;
          out = emptyPaths(chunk, columns);
          piece = Math.min(CHUNK_ROWS, piece * 4);
        }
      }
    }
    if (out.parent.length > 0) yield out;
  }
}
