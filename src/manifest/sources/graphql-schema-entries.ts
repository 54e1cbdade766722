import { createHash } from 'node:crypto';
import { isInterfaceType, type GraphQLArgument, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import { assertSourceName } from '../alias.ts';
import { canonicalJson } from '../canonical-json.ts';
import { entriesOf, type BuiltEntries, type CanonicalOperation, type OperationProblem } from '../catalogue-entry.ts';
import { FIELD_NAME_WALK_LIMIT, walkFieldNames } from '../field-names.ts';
import type { JsonValue } from '../canonical-json.ts';
import { MAX_SCHEMA_BYTES } from '../limits.ts';
import { operationNameProblem } from '../operation-name.ts';
import { PieceDocument } from '../schema-document.ts';
import { sha256Hex } from '../../digest/index.ts';
import { DIALECT, TypeConverter, inputSchemaOf, operationDescription, rootOperations, type RootOperation, type Schema } from './graphql-source.ts';

/** A named type's `$defs` entry, made once per type object and shared by every document that reaches it. */
interface Definition {
  readonly name: string;
  readonly def: Schema;
  /** `"<name>":<canonical definition>` in UTF-8: what the type adds to a `$defs` object. */
  readonly entry: Buffer;
  /** Named types (not scalars) the definition refers to. */
  readonly refs: readonly string[];
  /** Equal ids, equal bytes: kept from one schema to the next while the type's definition stays. */
  readonly id: number;
}

/** `$defs` entries of a set of types, sorted, in one buffer shared by every document whose `$defs` holds them. */
interface Block {
  readonly names: readonly string[];
  readonly has: ReadonlySet<string>;
  /** The entries joined by commas. */
  readonly bytes: Buffer;
  /** Where entry i starts; the last is `bytes.length + 1` (as if a comma followed). */
  readonly offsets: Int32Array;
}

/** Every type an output reaches: a shared block plus a few types of its own (sorted, not in the block). */
interface Closure {
  readonly block: Block | null;
  readonly extras: readonly string[];
  readonly size: number;
}

/** What decides an operation's document: equal signatures, equal bytes. */
interface Signature {
  readonly args: readonly GraphQLArgument[];
  readonly root: string;
  readonly block: Block | null;
  /** The extras with their definition ids. */
  readonly extras: string;
}

interface Built {
  readonly signature: Signature;
  readonly operation: CanonicalOperation;
}

/** Past this many types of its own, a closure gets a block of its own rather than sharing a larger one. */
const MAX_EXTRAS = 64;
const COMMA = Buffer.from(',');
const DEFS_OPEN = Buffer.from('{"$defs":{');

/**
 * The catalogue entries of one GraphQL source, kept from one version of its schema to the next:
 * equal to `buildCatalogueEntries(graphqlSource(name, sdl))` (test/manifest/graphql-schema-entries.test.ts
 * holds them together), at a cost that follows the change.
 * - Each named type's `$defs` entry is made once per type object and shared; the `$defs` of types
 *   that reach one another (a graph's connected labels) are one shared buffer, so the documents of
 *   operations that reach the same types share their bytes (memory grows with the schema, not with
 *   operations × schema).
 * - An operation whose arguments, root type and reached definitions are unchanged keeps its document
 *   and digests; only the others are hashed again.
 * - `steps` yields between types and operations, so a caller can give the event loop back.
 * The SDL is only hashed (the manifests' `source_sha256`); the schema is read as graphql-js objects.
 */
export class GraphqlSchemaEntries {
  readonly #source: string;
  readonly #byType = new WeakMap<GraphQLNamedType, Definition>();
  readonly #lastByName = new Map<string, Definition>();
  #nextId = 1;
  readonly #blocks = new Map<string, Block>();
  #built = new Map<string, Built>();
  readonly #inputs = new WeakMap<readonly GraphQLArgument[], { readonly schema: Schema; readonly canon: string; readonly sha: string }>();

  constructor(source: string) {
    assertSourceName(source);
    this.#source = source;
  }

  build(schema: GraphQLSchema, sdl: string | Uint8Array): BuiltEntries {
    const steps = this.steps(schema, sdl);
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
    }
  }

  *steps(schema: GraphQLSchema, sdl: string | Uint8Array): Generator<void, BuiltEntries, void> {
    const sourceSha256 = sha256Hex(sdl);
    const operations = rootOperations(schema);
    yield;

    // Each operation's root schema (its `$defs` aside), and the definitions of every type reached.
    const roots = new Map<RootOperation, { schema: Schema; canon: string; refs: readonly string[] }>();
    const definitions = new Map<string, Definition>();
    const pending: string[] = [];
    const reach = (names: Iterable<string>): void => {
      for (const name of names) if (!definitions.has(name)) pending.push(name);
    };
    for (const op of operations) {
      const converter = new TypeConverter(schema, true);
      const root: Schema = { $schema: DIALECT, ...converter.type(op.field.type) };
      roots.set(op, { schema: root, canon: canonicalJson(root), refs: [...converter.refs] });
      reach(converter.refs);
      while (pending.length > 0) {
        const name = pending.pop()!;
        if (definitions.has(name)) continue;
        const definition = this.#definition(schema, schema.getType(name)!);
        definitions.set(name, definition);
        for (const ref of definition.refs) if (!definitions.has(ref)) pending.push(ref);
        yield;
      }
    }
    for (const [name, definition] of definitions) this.#lastByName.set(name, definition);

    const closures = yield* this.#closures(definitions);
    const problems: OperationProblem[] = [];
    const accepted: CanonicalOperation[] = [];
    const built = new Map<string, Built>();
    for (const op of operations) {
      const name = op.field.name;
      const nameProblem = operationNameProblem(name);
      if (nameProblem !== undefined) {
        problems.push({ source: this.#source, operation: name, code: 'TG_OPERATION_NAME_INVALID', reason: nameProblem });
        continue;
      }
      const root = roots.get(op)!;
      const closure = mergeClosures(root.refs.map((ref) => closures.get(ref)!));
      const signature: Signature = {
        args: op.field.args, root: root.canon, block: closure.block,
        extras: closure.extras.map((n) => `${n}#${definitions.get(n)!.id}`).join(','),
      };
      const key = `${op.kind}.${name}`;
      const previous = this.#built.get(key);
      const operation = previous !== undefined && sameSignature(previous.signature, signature)
        ? previous.operation
        : this.#operation(schema, op, root, closure, definitions);
      built.set(key, { signature, operation });
      yield;
      if (operation.document.length > MAX_SCHEMA_BYTES) {
        problems.push({ source: this.#source, operation: name, code: 'TG_SCHEMA_TOO_LARGE', reason: `canonical schema is ${operation.document.length} bytes, over ${MAX_SCHEMA_BYTES}` });
        continue;
      }
      accepted.push(operation);
    }
    this.#built = built;
    yield;
    return { entries: entriesOf(this.#source, sourceSha256, accepted), problems };
  }

  #definition(schema: GraphQLSchema, named: GraphQLNamedType): Definition {
    // An interface's definition lists the schema's implementations: it is made again for each schema.
    const cacheable = !isInterfaceType(named);
    const cached = cacheable ? this.#byType.get(named) : undefined;
    if (cached !== undefined) return cached;
    const converter = new TypeConverter(schema, true);
    const def = converter.definitionOf(named);
    const entry = Buffer.from(`${JSON.stringify(named.name)}:${canonicalJson(def)}`, 'utf8');
    const previous = this.#lastByName.get(named.name);
    const id = previous?.entry.equals(entry) ? previous.id : this.#nextId++;
    const definition: Definition = { name: named.name, def, entry, refs: [...converter.refs], id };
    if (cacheable) this.#byType.set(named, definition);
    return definition;
  }

  /**
   * The closure of every type: the types that reach one another (strongly connected) share one, and
   * a type that reaches a large closure takes it as its block and keeps what it adds as extras.
   */
  *#closures(definitions: ReadonlyMap<string, Definition>): Generator<void, Map<string, Closure>, void> {
    const components = stronglyConnected(definitions);
    yield;
    const closures = new Map<string, Closure>();
    const usedBlocks = new Set<Block>();
    // Tarjan's order: every component comes after the components it reaches.
    let done = 0;
    for (const component of components) {
      if (++done % 64 === 0) yield;
      const successors = new Set<Closure>();
      const inComponent = new Set(component);
      for (const name of component) {
        for (const ref of definitions.get(name)!.refs) if (!inComponent.has(ref)) successors.add(closures.get(ref)!);
      }
      let base: Closure | undefined;
      for (const c of successors) if (base === undefined || (c.block?.names.length ?? 0) > (base.block?.names.length ?? 0)) base = c;
      const extras = new Set<string>(component);
      for (const c of successors) {
        if (c !== base && c.block !== null) for (const n of c.block.names) extras.add(n);
        for (const n of c.extras) extras.add(n);
      }
      if (base?.block != null) for (const n of extras) if (base.block.has.has(n)) extras.delete(n);
      let closure: Closure;
      if (extras.size <= MAX_EXTRAS) {
        const block = base?.block ?? null;
        closure = { block, extras: [...extras].sort(), size: (block?.names.length ?? 0) + extras.size };
        if (block !== null) usedBlocks.add(block);
      } else {
        const names = [...extras, ...(base?.block?.names ?? [])].sort();
        const block = this.#block(names, definitions);
        usedBlocks.add(block);
        closure = { block, extras: [], size: names.length };
        yield;
      }
      for (const name of component) closures.set(name, closure);
    }
    // Keep only the blocks this schema uses: the next one reuses them when their definitions stay.
    for (const [key, block] of this.#blocks) if (!usedBlocks.has(block)) this.#blocks.delete(key);
    return closures;
  }

  /** The block of these names (sorted), the same object as last time when their definitions are unchanged. */
  #block(names: readonly string[], definitions: ReadonlyMap<string, Definition>): Block {
    const key = blockKey(names, definitions);
    const known = this.#blocks.get(key);
    if (known !== undefined) return known;
    const offsets = new Int32Array(names.length + 1);
    const pieces: Buffer[] = [];
    let at = 0;
    names.forEach((name, i) => {
      offsets[i] = at;
      const entry = definitions.get(name)!.entry;
      if (i > 0) pieces.push(COMMA);
      pieces.push(entry);
      at += entry.length + 1;
    });
    offsets[names.length] = at;
    const block: Block = { names, has: new Set(names), bytes: Buffer.concat(pieces), offsets };
    this.#blocks.set(key, block);
    return block;
  }

  /** Makes one operation's canonical document (pieces of shared buffers) and its digests. */
  #operation(schema: GraphQLSchema, op: RootOperation, root: { schema: Schema; canon: string }, closure: Closure, definitions: ReadonlyMap<string, Definition>): CanonicalOperation {
    const input = this.#input(schema, op);
    const prefix = Buffer.from(`{"input":${input.canon},"operation":${JSON.stringify(op.field.name)},"output":`, 'utf8');
    let output: Uint8Array[];
    if (closure.size === 0) {
      output = [Buffer.from(root.canon, 'utf8')];
    } else {
      // JCS puts "$defs" first: it sorts before "$ref", "$schema" and every other key a root schema has.
      output = [DEFS_OPEN, ...defsPieces(closure, definitions), Buffer.from(`},${root.canon.slice(1)}`, 'utf8')];
    }
    const outputHash = createHash('sha256');
    for (const piece of output) outputHash.update(piece);
    const document = new PieceDocument([prefix, ...output, Buffer.from('}')]);
    return {
      operation: op.field.name,
      description: operationDescription(op),
      fields: this.#fields(input.schema, root.schema, closure, definitions),
      document,
      schemaSha256: sha256Hex(document),
      inputSchemaSha256: input.sha,
      outputSchemaSha256: outputHash.digest('hex'),
    };
  }

  #input(schema: GraphQLSchema, op: RootOperation): { readonly schema: Schema; readonly canon: string; readonly sha: string } {
    let input = this.#inputs.get(op.field.args);
    if (input === undefined) {
      const inputSchema = inputSchemaOf(schema, op.field);
      const canon = canonicalJson(inputSchema);
      input = { schema: inputSchema, canon, sha: sha256Hex(canon) };
      this.#inputs.set(op.field.args, input);
    }
    return input;
  }

  /**
   * fieldNamesOf(input, output) without building the output's `$defs` object: the walk visits the
   * output first, takes every `$defs` name at once, and stops at FIELD_NAME_WALK_LIMIT names, so
   * most of the time the type names decide alone; otherwise it goes on from the definitions, as
   * fieldNamesOf would from the `$defs` object.
   */
  #fields(input: Schema, root: Schema, closure: Closure, definitions: ReadonlyMap<string, Definition>): readonly string[] {
    const names = new Set<string>();
    const stack: JsonValue[] = [input];
    // The output object as fieldNamesOf visits it: the root schema's entries, then `$defs` (last).
    for (const child of Object.values(root)) if (child !== null && typeof child === 'object') stack.push(child);
    for (const [key, child] of Object.entries(root)) {
      if (key === 'properties' && child !== null && typeof child === 'object' && !Array.isArray(child)) for (const name of Object.keys(child)) names.add(name);
    }
    if (closure.size === 0) return walkFieldNames(names, stack);
    const sorted = closureNames(closure);
    for (const name of sorted) names.add(name);
    if (names.size >= FIELD_NAME_WALK_LIMIT) return walkFieldNames(names, stack);
    // The walk goes on into the `$defs` object: its keys are type names, its values the definitions.
    for (const name of sorted) {
      const def = definitions.get(name)!.def;
      if (name === 'properties') for (const key of Object.keys(def)) names.add(key);
      stack.push(def);
    }
    return walkFieldNames(names, stack);
  }
}

function sameSignature(a: Signature, b: Signature): boolean {
  return a.args === b.args && a.root === b.root && a.block === b.block && a.extras === b.extras;
}

function blockKey(names: readonly string[], definitions: ReadonlyMap<string, Definition>): string {
  return names.map((n) => `${n}#${definitions.get(n)!.id}`).join(',');
}

/** The closure of several roots: the largest block, the rest as extras (a block of its own past MAX_EXTRAS). */
function mergeClosures(closures: readonly Closure[]): Closure {
  if (closures.length === 0) return { block: null, extras: [], size: 0 };
  if (closures.length === 1) return closures[0]!;
  let base = closures[0]!;
  for (const c of closures) if ((c.block?.names.length ?? 0) > (base.block?.names.length ?? 0)) base = c;
  const extras = new Set<string>(base.extras);
  for (const c of closures) {
    if (c === base) continue;
    if (c.block !== null && c.block !== base.block) for (const n of c.block.names) extras.add(n);
    for (const n of c.extras) extras.add(n);
  }
  if (base.block !== null) for (const n of extras) if (base.block.has.has(n)) extras.delete(n);
  return { block: base.block, extras: [...extras].sort(), size: (base.block?.names.length ?? 0) + extras.size };
}

/** Every name of a closure, sorted. */
function closureNames(closure: Closure): string[] {
  const block = closure.block?.names ?? [];
  const out: string[] = [];
  let i = 0;
  for (const extra of closure.extras) {
    while (i < block.length && block[i]! < extra) out.push(block[i++]!);
    out.push(extra);
  }
  while (i < block.length) out.push(block[i++]!);
  return out;
}

/** The `$defs` object's entries, sorted by name, as views of the block around the extras' own entries. */
function defsPieces(closure: Closure, definitions: ReadonlyMap<string, Definition>): Uint8Array[] {
  const block = closure.block;
  const segments: Uint8Array[] = [];
  const run = (from: number, to: number): void => {
    if (block === null || to <= from) return;
    segments.push(block.bytes.subarray(block.offsets[from]!, block.offsets[to]! - 1));
  };
  let at = 0;
  for (const extra of closure.extras) {
    const index = block === null ? 0 : lowerBound(block.names, extra);
    run(at, index);
    segments.push(definitions.get(extra)!.entry);
    at = Math.max(at, index);
  }
  if (block !== null) run(at, block.names.length);
  const pieces: Uint8Array[] = [];
  segments.forEach((segment, i) => {
    if (i > 0) pieces.push(COMMA);
    pieces.push(segment);
  });
  return pieces;
}

function lowerBound(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (names[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Tarjan's strongly connected components (iterative), each after every component it reaches. */
function stronglyConnected(definitions: ReadonlyMap<string, Definition>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of definitions.keys()) {
    if (index.has(start)) continue;
    const work: { name: string; next: number }[] = [{ name: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const refs = definitions.get(frame.name)!.refs;
      if (frame.next < refs.length) {
        const ref = refs[frame.next++]!;
        if (!index.has(ref)) {
          index.set(ref, counter);
          low.set(ref, counter++);
          stack.push(ref);
          onStack.add(ref);
          work.push({ name: ref, next: 0 });
        } else if (onStack.has(ref)) {
          low.set(frame.name, Math.min(low.get(frame.name)!, index.get(ref)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.name, Math.min(low.get(parent.name)!, low.get(frame.name)!));
      if (low.get(frame.name) === index.get(frame.name)) {
        const component: string[] = [];
        let name: string;
        do {
          name = stack.pop()!;
          onStack.delete(name);
          component.push(name);
        } while (name !== frame.name);
        components.push(component);
      }
    }
  }
  return components;
}
