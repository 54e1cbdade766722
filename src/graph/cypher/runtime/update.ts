import { randomUUID } from 'node:crypto';
import type { EdgeRecord, GraphView, MutationInput, NodeRecord, PropertyValue, WriteMeter } from '../../engine/index.ts';
import type { CreateClause, DeleteClause, ForeachClause, MergeClause, NodePattern, RemoveClause, SetClause, UpdatingClause } from '../language/ast.ts';
import { outsideModel, runtimeError } from '../language/cypher-error.ts';
import { evaluate } from './evaluate.ts';
import { matchMerge, type MergeSource } from './merge.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { chargePath } from './match-named-path.ts';
import { EdgeRef, NodeRef, PathRef, isMap, typeName, type Value, type ValueMap } from './values.ts';

/** What a write statement changed, as Cypher clients know it. */
export interface WriteStats {
  nodesCreated: number;
  nodesDeleted: number;
  relationshipsCreated: number;
  relationshipsDeleted: number;
  propertiesSet: number;
}

/**
 * The pending writes of one statement: the mutations of its single batch, plus an overlay so later
 * clauses of the same statement read what earlier ones wrote (e.g. `CREATE (a {x: 1}) SET a.y = a.x`).
 * Every mutation is charged to the statement's write caps before it is kept, and every row to its
 * row and time budget, so a write over a cap stops while it runs, long before its batch is logged.
 */
export class PendingWrites implements MergeSource {
  readonly mutations: MutationInput[] = [];
  readonly stats: WriteStats = { nodesCreated: 0, nodesDeleted: 0, relationshipsCreated: 0, relationshipsDeleted: 0, propertiesSet: 0 };
  readonly #nodes = new Map<string, NodeRecord | null>();
  /**
   * Overlay records SET made: their props are the statement's own, changed in place rather than
   * copied on every SET. (A created node's props are its createNode mutation's, so they are not.)
   */
  readonly #own = new WeakSet<NodeRecord>();
  readonly #createdEdges = new Map<string, EdgeRecord>();
  readonly #removedEdges = new Set<string>();
  /** Node id → the edges this statement created at it (MERGE reads them without a pass over every created edge). */
  readonly #createdAt = new Map<string, EdgeRecord[]>();
  /** Label → ids of the nodes this statement created or changed (MERGE looks for them beside the stored ones). */
  readonly #touched = new Map<string, Set<string>>();
  readonly #view: GraphView;
  readonly #meter: WriteMeter;
  readonly #newId: () => string;

  constructor(view: GraphView, meter: WriteMeter, newId: () => string = randomUUID) {
    this.#view = view;
    this.#meter = meter;
    this.#newId = newId;
  }

  /** Adds a mutation to the batch, charged to the write caps first. */
  #keep(mutation: MutationInput): void {
    this.#meter.charge(mutation);
    this.mutations.push(mutation);
  }

  /** The node as this statement sees it: null once deleted here. */
  resolve(ref: NodeRef): NodeRecord | null {
    const pending = this.#nodes.get(ref.id);
    return pending === undefined ? ref.record : pending;
  }

  private write(ref: NodeRef, where: string): NodeRecord {
    const record = this.resolve(ref);
    if (record === null) throw runtimeError(`${where}: node ${JSON.stringify(ref.id)} was already deleted by this statement.`);
    return record;
  }

  /**
   * Runs one update clause over every row (a clause sees the writes of the clauses before it, for
   * every row). Counts each row against the time budget and yields the event loop between slices.
   */
  async run(clause: UpdatingClause, rows: Row[], ctx: RunContext): Promise<Row[]> {
    const budget = ctx.budget;
    if (clause.kind === 'delete') {
      const targets: Value[] = [];
      for (let i = 0; i < rows.length; i++) {
        if (budget.yieldDue) await budget.pause();
        budget.tick();
        for (const target of clause.targets) targets.push(evaluate(target, rows[i]!, ctx));
      }
      this.delete(clause, targets, ctx);
      return rows;
    }
    if (clause.kind === 'merge') return this.runMerge(clause, rows, ctx);
    if (clause.kind === 'foreach') return this.runForeach(clause, rows, ctx);
    const out = clause.kind === 'create' ? new Array<Row>(rows.length) : rows;
    for (let i = 0; i < rows.length; i++) {
      if (budget.yieldDue) await budget.pause();
      const row = rows[i]!;
      switch (clause.kind) {
        case 'create': out[i] = this.create(clause, row, ctx); break;
        case 'set': budget.tick(); this.set(clause, row, ctx); break;
        case 'remove': budget.tick(); this.remove(clause, row, ctx); break;
      }
    }
    return out;
  }

  private async runMerge(clause: MergeClause, rows: Row[], ctx: RunContext): Promise<Row[]> {
    const budget = ctx.budget;
    const out: Row[] = [];
    const onCreate: SetClause = { kind: 'set', items: clause.onCreate, offset: clause.offset };
    const onMatch: SetClause = { kind: 'set', items: clause.onMatch, offset: clause.offset };
    for (let i = 0; i < rows.length; i++) {
      if (budget.yieldDue) await budget.pause();
      budget.tick();
      const row = rows[i]!;
      const matched = matchMerge(clause, row, this, ctx);
      if (matched.length === 0) {
        const created = this.create({ kind: 'create', patterns: [clause.pattern], offset: clause.offset }, row, ctx);
        if (onCreate.items.length > 0) this.set(onCreate, created, ctx);
        out.push(created);
        continue;
      }
      for (const result of matched) {
        if (onMatch.items.length > 0) this.set(onMatch, result, ctx);
        out.push(result);
      }
    }
    return out;
  }

  /** FOREACH: its update clauses over a row per list item of every row; the rows themselves pass unchanged. */
  private async runForeach(clause: ForeachClause, rows: Row[], ctx: RunContext): Promise<Row[]> {
    const budget = ctx.budget;
    const slot = slotOf(ctx, clause.variable);
    let inner: Row[] = [];
    for (let i = 0; i < rows.length; i++) {
      if (budget.yieldDue) await budget.pause();
      budget.tick();
      const row = rows[i]!;
      const list = evaluate(clause.list, row, ctx);
      if (list === null) continue;
      if (!Array.isArray(list)) throw runtimeError(`FOREACH: expected a list after IN, got ${typeName(list)}.`);
      for (const item of list as readonly Value[]) {
        budget.addRows(1);
        const extended = row.slice();
        extended[slot] = item;
        inner.push(extended);
      }
    }
    for (const update of clause.updates) inner = await this.run(update, inner, ctx);
    return rows;
  }

  nodeById(id: string): NodeRecord | undefined {
    const pending = this.#nodes.get(id);
    if (pending === null) return undefined;
    return pending ?? this.#view.node(id);
  }

  nodesOf(label: string, scalars: Readonly<Record<string, string | number | boolean>>, ctx: RunContext): NodeRecord[] {
    const stored = this.#view.scan(label, { filter: scalars });
    const touched = this.#touched.get(label);
    ctx.budget.tick(stored.length + (touched?.size ?? 0));
    const out = stored.filter((record) => !this.#nodes.has(record.id));
    if (touched !== undefined) {
      for (const id of touched) {
        const record = this.#nodes.get(id);
        if (record !== null && record !== undefined && record.label === label) out.push(record);
      }
    }
    return out;
  }

  edgesAt(id: string, type: string, direction: 'out' | 'in' | 'both', ctx: RunContext): { edge: EdgeRecord; other: NodeRecord }[] {
    const out: { edge: EdgeRecord; other: NodeRecord }[] = [];
    const seen = new Set<string>();
    const hits = this.#view.edges([id], type, direction).get(id) ?? [];
    const created = this.#createdAt.get(id) ?? [];
    ctx.budget.tick(hits.length + created.length);
    const add = (edge: EdgeRecord): void => {
      const key = edgeKey(edge);
      if (seen.has(key) || this.#removedEdges.has(key)) return;
      seen.add(key);
      const other = this.nodeById(edge.src === id ? edge.tgt : edge.src);
      if (other !== undefined) out.push({ edge, other });
    };
    for (const hit of hits) add(hit.edge);
    for (const edge of created) {
      if (edge.type !== type || !this.#createdEdges.has(edgeKey(edge))) continue;
      if ((direction === 'out' && edge.src !== id) || (direction === 'in' && edge.tgt !== id)) continue;
      add(edge);
    }
    return out;
  }

  #touch(record: NodeRecord): void {
    let ids = this.#touched.get(record.label);
    if (ids === undefined) this.#touched.set(record.label, (ids = new Set()));
    ids.add(record.id);
  }

  private create(clause: CreateClause, input: Row, ctx: RunContext): Row {
    const row = input.slice();
    ctx.budget.addRows(1);
    const nodeOf = (node: NodePattern): NodeRef => {
      const slot = node.variable === null ? -1 : slotOf(ctx, node.variable);
      if (slot >= 0 && row[slot] !== undefined) {
        const bound = row[slot]!;
        if (!(bound instanceof NodeRef)) throw runtimeError(`CREATE: variable \`${node.variable}\` must be a node to be joined, got ${typeName(bound)}.`);
        this.write(bound, 'CREATE');
        return bound;
      }
      const created = this.createNode(node, row, ctx);
      if (slot >= 0) row[slot] = created;
      return created;
    };
    for (const pattern of clause.patterns) {
      let previous = nodeOf(pattern.start);
      // `CREATE p = (...)`: the path of what this pattern joined and made.
      const named = pattern.path !== undefined;
      if (named) chargePath(ctx.budget, pattern.steps.length);
      const pathNodes: NodeRef[] = [previous];
      const pathEdges: EdgeRef[] = [];
      for (const step of pattern.steps) {
        const next = nodeOf(step.node);
        const [src, tgt] = step.rel.direction === 'in' ? [next.id, previous.id] : [previous.id, next.id];
        const edge: EdgeRecord = { src, tgt, type: step.rel.types[0]! };
        this.#keep({ op: 'addEdge', ...edge });
        this.#createdEdges.set(edgeKey(edge), edge);
        this.#removedEdges.delete(edgeKey(edge));
        for (const end of edge.src === edge.tgt ? [edge.src] : [edge.src, edge.tgt]) {
          const list = this.#createdAt.get(end);
          if (list === undefined) this.#createdAt.set(end, [edge]);
          else list.push(edge);
        }
        this.stats.relationshipsCreated++;
        if (step.rel.variable !== null) row[slotOf(ctx, step.rel.variable)] = new EdgeRef(edge);
        if (named) {
          pathNodes.push(next);
          pathEdges.push(new EdgeRef(edge));
        }
        previous = next;
      }
      if (named) row[slotOf(ctx, pattern.path!)] = new PathRef(pathNodes, pathEdges);
    }
    return row;
  }

  private createNode(node: NodePattern, row: Row, ctx: RunContext): NodeRef {
    if (node.label === null) throw runtimeError('CREATE: a new node needs a label, like (n:Person).');
    // No prototype: a key named __proto__ stays a key, so the engine refuses it as SET n.__proto__ is refused.
    const props = Object.create(null) as Record<string, PropertyValue>;
    let id: string | null = null;
    if (node.properties !== null) {
      const map = evaluate(node.properties, row, ctx);
      if (!isMap(map)) throw runtimeError(`CREATE: the property map must be a map, got ${typeName(map)}.`);
      for (const key of Object.keys(map)) {
        const value = map[key]!;
        if (key === 'id') {
          // `id` is the node id, never a property: CREATE (n:Person {id: 'p1'}) names the node.
          // `id` names the node: a string. A number there is a property called id, which the model reserves.
          if (typeof value !== 'string') throw outsideModel(`CREATE of a node whose id is ${typeName(value) === 'Integer' || typeName(value) === 'Float' ? 'a number' : `a ${typeName(value)}`} (id is the node id, a string)`, 'a property named id');
          id = value;
          continue;
        }
        const converted = toPropertyValue(value, key);
        if (converted !== null) props[key] = converted;
      }
    }
    const record: NodeRecord = { id: id ?? this.#newId(), label: node.label, props };
    if (this.#nodes.get(record.id) !== undefined) throw runtimeError(`CREATE: node id ${JSON.stringify(record.id)} is created twice by this statement.`);
    this.#keep({ op: 'createNode', id: record.id, label: record.label, props });
    this.#nodes.set(record.id, record);
    this.#touch(record);
    this.stats.nodesCreated++;
    this.stats.propertiesSet += Object.keys(props).length;
    return new NodeRef(record);
  }

  private target(row: Row, variable: string, where: string, ctx: RunContext): NodeRef | null {
    const value = row[slotOf(ctx, variable)];
    if (value === undefined) throw runtimeError(`${where}: variable \`${variable}\` is not defined.`);
    if (value === null) return null;
    if (value instanceof EdgeRef) throw outsideModel(`${where} of a property of the relationship \`${variable}\``, 'a relationship with properties');
    if (!(value instanceof NodeRef)) throw runtimeError(`${where}: \`${variable}\` must be a node, got ${typeName(value)}.`);
    return value;
  }

  private apply(ref: NodeRef, set: Record<string, PropertyValue>, unset: string[]): void {
    const record = this.write(ref, 'SET');
    const mutation: MutationInput = unset.length > 0 ? { op: 'updateNode', id: ref.id, set, unset } : { op: 'updateNode', id: ref.id, set };
    this.#keep(mutation);
    // A node's stored props are copied once per statement, at its first change; later changes edit that copy.
    let props = record.props as Record<string, PropertyValue>;
    if (!this.#own.has(record)) {
      props = { ...record.props };
      const own: NodeRecord = { id: record.id, label: record.label, props };
      this.#nodes.set(ref.id, own);
      this.#own.add(own);
      this.#touch(own);
    }
    for (const key of unset) delete props[key];
    Object.assign(props, set);
    this.stats.propertiesSet += Object.keys(set).length + unset.length;
  }

  private set(clause: SetClause, row: Row, ctx: RunContext): void {
    for (const item of clause.items) {
      const ref = this.target(row, item.variable, 'SET', ctx);
      if (ref === null) continue;
      const record = this.write(ref, 'SET');
      if (item.kind === 'setProperty') {
        if (item.key === 'id') throw runtimeError('SET: a node id cannot be changed.');
        const value = toPropertyValue(evaluate(item.value, row, ctx), item.key);
        if (value === null) {
          if (Object.hasOwn(record.props, item.key)) this.apply(ref, {}, [item.key]);
        } else this.apply(ref, { [item.key]: value }, []);
        continue;
      }
      const source = evaluate(item.value, row, ctx);
      let map: ValueMap;
      if (source === null) map = {};
      else if (source instanceof NodeRef) map = (this.resolve(source)?.props ?? {}) as ValueMap;
      else if (isMap(source)) map = source;
      else throw runtimeError(`SET: expected a map or node on the right of ${item.merge ? '+=' : '='}, got ${typeName(source)}.`);
      const set = Object.create(null) as Record<string, PropertyValue>;
      const unset: string[] = [];
      for (const key of Object.keys(map)) {
        if (key === 'id') throw runtimeError('SET: a node id cannot be changed.');
        const value = toPropertyValue(map[key]!, key);
        if (value === null) {
          if (Object.hasOwn(record.props, key)) unset.push(key);
        } else set[key] = value;
      }
      if (!item.merge) for (const key of Object.keys(record.props)) if (!Object.hasOwn(map, key)) unset.push(key);
      if (Object.keys(set).length > 0 || unset.length > 0) this.apply(ref, set, unset);
    }
  }

  private remove(clause: RemoveClause, row: Row, ctx: RunContext): void {
    for (const item of clause.items) {
      const ref = this.target(row, item.variable, 'REMOVE', ctx);
      if (ref === null) continue;
      if (item.key === 'id') throw runtimeError('REMOVE: a node id cannot be removed.');
      const record = this.write(ref, 'REMOVE');
      if (Object.hasOwn(record.props, item.key)) this.apply(ref, {}, [item.key]);
    }
  }

  /** Deletes the nodes and relationships the clause's targets evaluated to, over every row. */
  private delete(clause: DeleteClause, targets: readonly Value[], ctx: RunContext): void {
    const nodes = new Map<string, NodeRef>();
    const edges = new Map<string, EdgeRecord>();
    const add = (value: Value): void => {
      if (value === null) return;
      if (value instanceof NodeRef) nodes.set(value.id, value);
      else if (value instanceof EdgeRef) edges.set(edgeKey(value.edge), value.edge);
      else if (value instanceof PathRef) {
        // A path deletes its nodes and relationships.
        for (const node of value.nodes) add(node);
        for (const edge of value.edges) add(edge);
      } else if (Array.isArray(value)) for (const item of value as readonly Value[]) add(item);
      else throw runtimeError(`DELETE: expected a node, relationship or path, got ${typeName(value)}.`);
    };
    for (const target of targets) add(target);

    for (const [key, edge] of edges) {
      if (this.#removedEdges.has(key) || this.#nodes.get(edge.src) === null || this.#nodes.get(edge.tgt) === null) continue;
      this.#keep({ op: 'removeEdge', ...edge });
      this.#removedEdges.add(key);
      this.#createdEdges.delete(key);
      this.stats.relationshipsDeleted++;
    }
    const live = [...nodes.values()].filter((ref) => this.resolve(ref) !== null);
    if (live.length === 0) return;
    // One whole-frontier step finds every remaining edge of every node being deleted.
    const hits = this.#view.edges(live.map((ref) => ref.id), null, 'both');
    for (const ref of live) {
      const touching = new Map<string, EdgeRecord>();
      const stored = hits.get(ref.id) ?? [];
      // Work in proportion to the edges looked at, so a large DETACH DELETE still stops at the time budget.
      ctx.budget.tick(stored.length + this.#createdEdges.size);
      for (const hit of stored) touching.set(edgeKey(hit.edge), hit.edge);
      for (const [key, edge] of this.#createdEdges) if (edge.src === ref.id || edge.tgt === ref.id) touching.set(key, edge);
      for (const key of [...touching.keys()]) {
        const edge = touching.get(key)!;
        const other = edge.src === ref.id ? edge.tgt : edge.src;
        if (this.#removedEdges.has(key) || (other !== ref.id && this.#nodes.get(other) === null)) touching.delete(key);
      }
      if (touching.size > 0 && !clause.detach) {
        throw runtimeError(`DELETE: node ${JSON.stringify(ref.id)} still has ${touching.size} relationship${touching.size === 1 ? '' : 's'}; use DETACH DELETE to remove them too.`);
      }
      for (const key of touching.keys()) {
        this.#removedEdges.add(key);
        this.#createdEdges.delete(key);
      }
      this.stats.relationshipsDeleted += touching.size;
      this.#keep({ op: 'deleteNode', id: ref.id });
      this.#nodes.set(ref.id, null);
      this.stats.nodesDeleted++;
    }
  }
}

function edgeKey(edge: EdgeRecord): string {
  return `${edge.src}\u0000${edge.type}\u0000${edge.tgt}`;
}

/** A runtime value as a stored property: scalars and lists of non-null scalars; null unsets. */
function toPropertyValue(value: Value, key: string): PropertyValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = value as readonly Value[];
    if (items.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) return items as readonly (string | number | boolean)[];
  }
  throw runtimeError(`Property ${key} cannot hold a ${typeName(value)}: properties are strings, numbers, booleans or lists of one of these.`, { property: key, got: typeName(value) });
}
