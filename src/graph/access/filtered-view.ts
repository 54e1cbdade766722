import type {
  Direction, EdgeHit, EdgeRecord, GraphCatalogue, GraphView, NodeRecord, Scalar, ScanOptions,
} from '../engine/index.ts';
import type { RowRules } from './compiled-policy.ts';

const NONE: readonly never[] = Object.freeze([]);
/** An id no node can have (ids are 1 to 256 characters): stands in for a hidden frontier entry. */
const NO_NODE = '';

/**
 * A GraphView that shows only the rows a principal's row rules accept, read through from the live
 * view: hidden nodes are absent from node(), scans, counts and neighbour lists, and an edge exists
 * only when both of its ends are visible. Keyset bounds and first/last apply to the visible rows, so
 * pages, cursors and counts are exactly those of a graph without the hidden rows.
 */
export class FilteredView implements GraphView {
  readonly #base: GraphView;
  readonly #rows: RowRules;
  readonly #visible: (node: NodeRecord) => boolean;

  constructor(base: GraphView, rows: RowRules) {
    this.#base = base;
    this.#rows = rows;
    this.#visible = rows.shows;
  }

  get name(): string {
    return this.#base.name;
  }

  get version(): number {
    return this.#base.version;
  }

  get catalogue(): GraphCatalogue {
    return this.#base.catalogue;
  }

  get nodeCount(): number {
    let n = 0;
    for (const label of this.#base.labels()) n += this.count(label);
    return n;
  }

  get edgeCount(): number {
    let n = 0;
    for (const _ of this.allEdges()) n++;
    return n;
  }

  /** Whether a node of the underlying graph is visible here. */
  visible(node: NodeRecord): boolean {
    return this.#visible(node);
  }

  node(id: string): NodeRecord | undefined {
    const node = this.#base.node(id);
    return node !== undefined && this.#visible(node) ? node : undefined;
  }

  scan(label: string, options: ScanOptions = {}): NodeRecord[] {
    const rule = this.#rows.rule(label);
    if (rule === true) return this.#base.scan(label, options);
    if (rule === false) {
      // Same argument checks (first/last) as the graph's own scan, then nothing.
      this.#base.scan(label, { ...options, filter: { id: NO_NODE } });
      return [];
    }
    const keep = options.keep;
    return this.#base.scan(label, { ...options, keep: keep === undefined ? rule : (node) => rule(node) && keep(node) });
  }

  count(label: string, filter?: Readonly<Record<string, Scalar>>, keep?: (node: NodeRecord) => boolean): number {
    const rule = this.#rows.rule(label);
    if (rule === true) return this.#base.count(label, filter, keep);
    if (rule === false) return 0;
    return this.#base.count(label, filter, keep === undefined ? rule : (node) => rule(node) && keep(node));
  }

  labels(): readonly string[] {
    return this.#base.labels();
  }

  #visibleIds(frontier: readonly string[]): string[] {
    const ids: string[] = [];
    for (const id of frontier) if (this.node(id) !== undefined) ids.push(id);
    return ids;
  }

  #keepVisible<T>(list: readonly T[], nodeOf: (item: T) => NodeRecord): readonly T[] {
    let i = 0;
    while (i < list.length && this.#visible(nodeOf(list[i]!))) i++;
    if (i === list.length) return list;
    const out = list.slice(0, i);
    for (i++; i < list.length; i++) if (this.#visible(nodeOf(list[i]!))) out.push(list[i]!);
    return out.length === 0 ? NONE : out;
  }

  expand(frontier: readonly string[], edgeType: string | null, direction: Direction): Map<string, readonly NodeRecord[]> {
    const found = this.#base.expand(this.#visibleIds(frontier), edgeType, direction);
    for (const [id, list] of found) found.set(id, this.#keepVisible(list, (n) => n));
    return found;
  }

  expandEach(frontier: readonly (NodeRecord | string)[], edgeType: string | null, direction: Direction): (readonly NodeRecord[])[] {
    const entries = frontier.map((entry) => (typeof entry === 'string' ? (this.node(entry) === undefined ? NO_NODE : entry) : this.#visible(entry) ? entry : NO_NODE));
    return this.#base.expandEach(entries, edgeType, direction).map((list) => this.#keepVisible(list, (n) => n));
  }

  edges(frontier: readonly string[], edgeType: string | null, direction: Direction): Map<string, readonly EdgeHit[]> {
    const found = this.#base.edges(this.#visibleIds(frontier), edgeType, direction);
    for (const [id, list] of found) found.set(id, this.#keepVisible(list, (hit) => hit.node));
    return found;
  }

  *allNodes(): Iterable<NodeRecord> {
    for (const node of this.#base.allNodes()) if (this.#visible(node)) yield node;
  }

  *allEdges(): Iterable<EdgeRecord> {
    for (const edge of this.#base.allEdges()) {
      if (this.node(edge.src) !== undefined && this.node(edge.tgt) !== undefined) yield edge;
    }
  }
}

/** The view of a principal that may read nothing: an empty graph with the same name and version. */
export class EmptyView implements GraphView {
  readonly #base: GraphView;

  constructor(base: GraphView) {
    this.#base = base;
  }

  get name(): string {
    return this.#base.name;
  }

  get version(): number {
    return this.#base.version;
  }

  get catalogue(): GraphCatalogue {
    return this.#base.catalogue;
  }

  readonly nodeCount = 0;
  readonly edgeCount = 0;

  node(): undefined {
    return undefined;
  }

  scan(): NodeRecord[] {
    return [];
  }

  count(): number {
    return 0;
  }

  labels(): readonly string[] {
    return this.#base.labels();
  }

  expand(): Map<string, readonly NodeRecord[]> {
    return new Map();
  }

  expandEach(frontier: readonly (NodeRecord | string)[]): (readonly NodeRecord[])[] {
    return frontier.map(() => NONE);
  }

  edges(): Map<string, readonly EdgeHit[]> {
    return new Map();
  }

  allNodes(): Iterable<NodeRecord> {
    return NONE;
  }

  allEdges(): Iterable<EdgeRecord> {
    return NONE;
  }
}
