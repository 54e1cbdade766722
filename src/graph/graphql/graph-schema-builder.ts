import type { GraphQLSchema } from 'graphql';
import type { GraphCatalogue } from '../engine/index.ts';
import { schemaModelFromCatalogue, schemaModelSteps, sdlFromModel, type LabelModel, type SchemaModel } from '../schema/index.ts';
import type { GraphSchema, LabelPlan, NodeField, RootField } from './graph-schema.ts';
import { SchemaAssembler } from './schema-assembler.ts';

/** Work done between two turns of the event loop while a schema loads (see GraphSchemaCache.load). */
const SLICE_MS = 8;

/** The executor's plan of a label, built once per LabelModel object (the model keeps it while the label is unchanged). */
const plans = new WeakMap<LabelModel, LabelPlan>();

function labelPlan(model: LabelModel): LabelPlan {
  let plan = plans.get(model);
  if (plan === undefined) {
    const fields = new Map<string, NodeField>([['id', { kind: 'id' }]]);
    for (const p of model.properties) fields.set(p.name, { kind: 'property', name: p.name, type: p.type });
    for (const e of model.edges) fields.set(e.name, { kind: 'edge', edge: e });
    plan = { model, fields };
    plans.set(model, plan);
  }
  return plan;
}

/**
 * Builds GraphSchemas. A builder keeps what it built per label (see SchemaAssembler), so a new
 * catalogue epoch costs the labels that changed (and those whose edge fields reach them), not the
 * whole schema; the SDL is printed only when asked for.
 */
export class GraphSchemaBuilder {
  readonly #assembler = new SchemaAssembler();

  build(catalogue: GraphCatalogue, model: SchemaModel = schemaModelFromCatalogue(catalogue)): GraphSchema {
    return this.#complete(catalogue, model, this.#assembler.assemble(model));
  }

  /** `build` as steps (see SchemaAssembler.steps), for callers that give the event loop back between them. */
  *steps(catalogue: GraphCatalogue): Generator<void, GraphSchema, void> {
    const model = yield* schemaModelSteps(catalogue);
    yield;
    const schema = yield* this.#assembler.steps(model);
    return this.#complete(catalogue, model, schema);
  }

  /** As `build`, giving the event loop back whenever a slice of about `sliceMs` of work is done. */
  buildInSlices(catalogue: GraphCatalogue, sliceMs: number): Promise<GraphSchema> {
    return runInSlices(this.steps(catalogue), sliceMs);
  }

  #complete(catalogue: GraphCatalogue, model: SchemaModel, schema: GraphQLSchema): GraphSchema {
    const labels = new Map<string, LabelPlan>();
    const roots = new Map<string, RootField>([['_entities', { kind: 'entities' }], ['_service', { kind: 'service' }]]);
    const connectionTypes = new Map<string, string>();
    const edgeTypes = new Map<string, string>();
    const labelOfType = new Map<string, string>();
    for (const label of model.labels) {
      labels.set(label.label, labelPlan(label));
      labelOfType.set(label.typeName, label.label);
      roots.set(label.listField, { kind: 'list', label: label.label });
      roots.set(label.connectionField, { kind: 'connection', label: label.label });
      connectionTypes.set(label.connectionType, label.label);
      edgeTypes.set(label.edgeType, label.label);
    }
    const unions = new Map<string, ReadonlySet<string>>(model.unions.map((u) => [u.name, new Set(u.members)]));
    return new BuiltGraphSchema({ epoch: catalogue.epoch, schema, model, labels, roots, labelOfType, connectionTypes, edgeTypes, unions });
  }
}

/**
 * A built GraphSchema. A class, not an object literal: a literal with a getter (the lazy `sdl`) is
 * created in dictionary mode, so every read of its fields on the hot path (`graphSchema.schema`,
 * `.labels`, `.epoch` …) went through V8's generic property lookup instead of an inline cache.
 */
class BuiltGraphSchema implements GraphSchema {
  readonly epoch: string;
  readonly schema: GraphQLSchema;
  readonly model: SchemaModel;
  readonly labels: ReadonlyMap<string, LabelPlan>;
  readonly roots: ReadonlyMap<string, RootField>;
  readonly names: SchemaModel['names'];
  readonly labelOfType: ReadonlyMap<string, string>;
  readonly connectionTypes: ReadonlyMap<string, string>;
  readonly edgeTypes: ReadonlyMap<string, string>;
  readonly unions: ReadonlyMap<string, ReadonlySet<string>>;
  #sdl: string | undefined;

  constructor(fields: Omit<GraphSchema, 'sdl' | 'names'>) {
    this.epoch = fields.epoch;
    this.schema = fields.schema;
    this.model = fields.model;
    this.labels = fields.labels;
    this.roots = fields.roots;
    this.names = fields.model.names;
    this.labelOfType = fields.labelOfType;
    this.connectionTypes = fields.connectionTypes;
    this.edgeTypes = fields.edgeTypes;
    this.unions = fields.unions;
  }

  get sdl(): string {
    this.#sdl ??= sdlFromModel(this.model);
    return this.#sdl;
  }
}

/** Runs steps to the end, giving the event loop back (setImmediate) whenever `sliceMs` have passed since the last time. */
async function runInSlices<T>(steps: Generator<void, T, void>, sliceMs: number): Promise<T> {
  let deadline = performance.now() + sliceMs;
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() >= deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      deadline = performance.now() + sliceMs;
    }
  }
}

/** Builds the executable subgraph schema of a catalogue (same SDL as `npm run introspect`). */
export function buildGraphSchema(catalogue: GraphCatalogue): GraphSchema {
  return new GraphSchemaBuilder().build(catalogue);
}

/**
 * GraphSchemas by catalogue epoch, most recently used kept. A request takes the schema of the
 * epoch it sees and keeps it to the end, so a rebuild never disturbs requests in flight. Schemas are
 * built when first asked for (the next request after a change, once for a burst of changes), by one
 * builder, so a new epoch reuses the types of the labels it did not change. Callers that name the
 * graph let the cache drop a graph's previous epoch as soon as it has a new one (new requests only
 * ever ask for the current one), so a large schema is not kept once per change.
 */
export class GraphSchemaCache {
  readonly #byEpoch = new Map<string, GraphSchema>();
  readonly #max: number;
  readonly #builder = new GraphSchemaBuilder();
  readonly #loading = new Map<string, Promise<GraphSchema>>();
  /** The epoch each named graph was last served at. */
  readonly #epochOf = new Map<string, string>();

  constructor(max = 32) {
    this.#max = max;
  }

  #last: GraphSchema | undefined;

  get(catalogue: GraphCatalogue, graph?: string): GraphSchema {
    const schema = this.#last?.epoch === catalogue.epoch ? this.#last : this.#lookup(catalogue);
    this.#last = schema;
    if (graph !== undefined) this.#serve(graph, schema.epoch);
    return schema;
  }

  /** The schema of this catalogue when it is built already (no work), else undefined. */
  cached(catalogue: GraphCatalogue, graph?: string): GraphSchema | undefined {
    if (this.#last?.epoch !== catalogue.epoch && !this.#byEpoch.has(catalogue.epoch)) return undefined;
    return this.get(catalogue, graph);
  }

  /**
   * As `get`, with the work that can be spread out done in slices of about SLICE_MS between turns of
   * the event loop, so a large first build (after a restart, or of a graph the process has not served
   * yet) never holds the loop for long. Concurrent loads of one epoch share one build.
   */
  load(catalogue: GraphCatalogue, graph?: string): Promise<GraphSchema> {
    const hit = this.cached(catalogue, graph);
    if (hit !== undefined) return Promise.resolve(hit);
    let loading = this.#loading.get(catalogue.epoch);
    if (loading === undefined) {
      loading = this.#builder.buildInSlices(catalogue, SLICE_MS)
        .then((built) => this.#byEpoch.get(built.epoch) ?? this.#remember(built))
        .finally(() => this.#loading.delete(catalogue.epoch));
      this.#loading.set(catalogue.epoch, loading);
    }
    return loading.then((built) => {
      if (graph !== undefined) this.#serve(graph, built.epoch);
      return built;
    });
  }

  /** Notes that `graph` is now at `epoch`, and drops its previous epoch unless another graph is at it too. */
  #serve(graph: string, epoch: string): void {
    const previous = this.#epochOf.get(graph);
    if (previous === epoch) return;
    this.#epochOf.set(graph, epoch);
    if (previous === undefined) return;
    for (const other of this.#epochOf.values()) if (other === previous) return;
    this.#byEpoch.delete(previous);
    if (this.#last?.epoch === previous) this.#last = undefined;
  }

  #remember(built: GraphSchema): GraphSchema {
    this.#byEpoch.set(built.epoch, built);
    if (this.#byEpoch.size > this.#max) this.#byEpoch.delete(this.#byEpoch.keys().next().value!);
    return built;
  }

  #lookup(catalogue: GraphCatalogue): GraphSchema {
    const hit = this.#byEpoch.get(catalogue.epoch);
    if (hit) {
      // Re-insert to mark it most recently used.
      this.#byEpoch.delete(catalogue.epoch);
      this.#byEpoch.set(catalogue.epoch, hit);
      return hit;
    }
    return this.#remember(this.#builder.build(catalogue));
  }
}
