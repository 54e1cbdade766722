import {
  GraphQLNonNull, Kind, getNamedType, isAbstractType, isCompositeType, isLeafType, isListType, isNonNullType, parse, typeFromAST, validate, valueFromASTUntyped,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLCompositeType, type GraphQLOutputType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { sha256Hex } from '../../digest/index.ts';
import { canonicalJson, type JsonValue } from '../canonical-json.ts';
import type { JsonSchema, OperationSchema, SchemaSource } from '../schema-source.ts';
import { DIALECT, TypeConverter, schemaFromSdl, type Schema } from './graphql-source.ts';

/** A trusted document the catalogue publishes: its id (sha256 of the text), text and operation. */
export interface PersistedOperation {
  /** The catalogue operation: the document's operation name. */
  readonly operation: string;
  /** The trusted document's id: the sha256 of its text. */
  readonly id: string;
  readonly text: string;
  readonly kind: 'query' | 'mutation';
}

/** A trusted document left out, and why (the operation tools' start-up log names each). */
interface PersistedDocumentProblem {
  readonly id: string;
  readonly reason: string;
}

interface PersistedDocumentSource {
  readonly source: SchemaSource;
  /** Same order as `source.operations`. */
  readonly operations: readonly PersistedOperation[];
  readonly problems: readonly PersistedDocumentProblem[];
}

/**
 * The trusted (persisted) GraphQL documents of a graph as a catalogue source: one operation per
 * document, named by its operation. Input: an object of the document's variables (non-null without
 * default → required; defaults kept). Output: `{data, errors}` where `data` is exactly the shape the
 * selection answers (response keys, aliases included, nullability from the schema, the fields of
 * inline fragments and spreads; on an abstract type a key selected only under a type condition is
 * optional). A document that does not validate against the SDL, holds no operation or several, is
 * a subscription or is unnamed is left out with the reason. The source digest is of the JCS list
 * of `{id, text}` and the SDL digest, so it changes when either does.
 */
export function persistedDocumentSource(name: string, sdl: string, documents: ReadonlyMap<string, string>): PersistedDocumentSource {
  const schema = schemaFromSdl(sdl);
  const operations: PersistedOperation[] = [];
  const schemas: OperationSchema[] = [];
  const problems: PersistedDocumentProblem[] = [];
  const seen = new Set<string>();
  for (const [id, text] of [...documents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const built = operationOf(schema, id, text);
    if ('reason' in built) {
      problems.push(built);
      continue;
    }
    if (seen.has(built.persisted.operation)) {
      problems.push({ id, reason: `another trusted document is also named ${built.persisted.operation}` });
      continue;
    }
    seen.add(built.persisted.operation);
    operations.push(built.persisted);
    schemas.push(built.schema);
  }
  const digestInput = { sdl: sha256Hex(sdl), documents: operations.map((o) => ({ id: o.id, text: o.text })) };
  return { source: { name, sourceSha256: sha256Hex(canonicalJson(digestInput)), operations: schemas }, operations, problems };
}

function operationOf(schema: GraphQLSchema, id: string, text: string): { persisted: PersistedOperation; schema: OperationSchema } | PersistedDocumentProblem {
  let document: DocumentNode;
  try {
    document = parse(text, { noLocation: true });
  } catch (error) {
    return { id, reason: `does not parse: ${(error as Error).message}` };
  }
  const errors = validate(schema, document);
  if (errors.length > 0) return { id, reason: `does not validate against the graph's schema: ${errors[0]?.message}` };
  const definitions = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (definitions.length !== 1) return { id, reason: `holds ${definitions.length} operations; an operation tool runs one` };
  const definition = definitions[0] as OperationDefinitionNode;
  if (definition.name === undefined) return { id, reason: 'the operation has no name' };
  if (definition.operation === 'subscription') return { id, reason: 'subscriptions are served by the SSE carrier, not as tools' };
  const kind = definition.operation === 'mutation' ? 'mutation' : 'query';
  const root = kind === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (root === null || root === undefined) return { id, reason: `the schema has no ${kind} type` };
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const shapes = new SelectionShapes(schema, fragments);
  const input = variablesSchema(schema, definition);
  const data = shapes.selection(root, definition.selectionSet);
  const output: Schema = {
    $schema: DIALECT,
    type: 'object',
    properties: {
      data: { anyOf: [data, { type: 'null' }] },
      errors: { type: 'array', items: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
    },
    required: ['data'],
    additionalProperties: false,
  };
  const defs = shapes.defs();
  if (defs !== undefined) output['$defs'] = defs;
  const operation = definition.name.value;
  const roots = definition.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
  return {
    persisted: { operation, id, text, kind },
    schema: {
      operation,
      description: `GraphQL persisted ${kind} ${operation} (trusted document ${id.slice(0, 12)}): reads ${roots.join(', ') || 'fragments'}`,
      input: input as JsonSchema,
      output: output as JsonSchema,
    },
  };
}

function variablesSchema(schema: GraphQLSchema, definition: OperationDefinitionNode): Schema {
  const converter = new TypeConverter(schema);
  const properties: Schema = {};
  const required: string[] = [];
  for (const variable of definition.variableDefinitions ?? []) {
    const type = typeFromAST(schema, variable.type as never);
    const name = variable.variable.name.value;
    if (type === undefined) continue; // validate() refused unknown types already
    const value = converter.type(type);
    properties[name] = variable.defaultValue === undefined ? value : { ...value, default: valueFromASTUntyped(variable.defaultValue) as JsonValue };
    if (isNonNullType(type) && variable.defaultValue === undefined) required.push(name);
  }
  const input: Schema = { $schema: DIALECT, type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
  const defs = converter.defs();
  if (defs !== undefined) input['$defs'] = defs;
  return input;
}

/** The JSON shape a selection set answers; enums and custom scalars through a TypeConverter (their `$defs`). */
class SelectionShapes {
  readonly #leaves: TypeConverter;
  readonly #schema: GraphQLSchema;
  readonly #fragments: ReadonlyMap<string, FragmentDefinitionNode>;

  constructor(schema: GraphQLSchema, fragments: ReadonlyMap<string, FragmentDefinitionNode>) {
    this.#schema = schema;
    this.#fragments = fragments;
    this.#leaves = new TypeConverter(schema);
  }

  defs(): Schema | undefined {
    return this.#leaves.defs();
  }

  /** An object of the response keys the selection answers on `parent`. */
  selection(parent: GraphQLCompositeType, set: SelectionSetNode): Schema {
    const properties = new Map<string, Schema>();
    const always = new Set<string>();
    this.#collect(parent, set, properties, always, true, new Set());
    const required = [...properties.keys()].filter((key) => always.has(key));
    return { type: 'object', properties: Object.fromEntries(properties), ...(required.length > 0 ? { required } : {}), additionalProperties: false };
  }

  #collect(parent: GraphQLCompositeType, set: SelectionSetNode, properties: Map<string, Schema>, always: Set<string>, certain: boolean, spreading: Set<string>): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        // A directive (@include, @skip) may drop the key: not certain then.
        const sure = certain && (selection.directives ?? []).length === 0;
        if (sure) always.add(key);
        if (properties.has(key)) continue; // validation made every selection of one key answer the same shape
        if (selection.name.value === '__typename') {
          properties.set(key, isAbstractType(parent) ? { type: 'string', enum: this.#schema.getPossibleTypes(parent).map((t) => t.name) } : { const: parent.name });
          continue;
        }
        const field = 'getFields' in parent ? parent.getFields()[selection.name.value] : undefined;
        if (field === undefined) continue;
        properties.set(key, this.#value(field.type, selection.selectionSet));
        continue;
      }
      const condition = selection.kind === Kind.INLINE_FRAGMENT ? selection.typeCondition?.name.value : this.#fragments.get(selection.name.value)?.typeCondition.name.value;
      const fragmentSet = selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : this.#fragments.get(selection.name.value)?.selectionSet;
      if (fragmentSet === undefined) continue;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        if (spreading.has(selection.name.value)) continue; // validation refuses cycles; never loop anyway
        spreading.add(selection.name.value);
      }
      const type = condition === undefined ? parent : this.#schema.getType(condition);
      const applies = type !== undefined && type !== null && isCompositeType(type);
      if (!applies) continue;
      // A fragment on the parent's own type always applies; on another type only sometimes.
      const sure = certain && type.name === parent.name && (selection.directives ?? []).length === 0;
      this.#collect(isAbstractType(parent) || type.name === parent.name ? type : parent, fragmentSet, properties, always, sure, spreading);
      if (selection.kind === Kind.FRAGMENT_SPREAD) spreading.delete(selection.name.value);
    }
  }

  #value(type: GraphQLOutputType, set: SelectionSetNode | undefined): Schema {
    if (isNonNullType(type)) return this.#nonNull(type.ofType, set);
    return orNull(this.#nonNull(type, set));
  }

  #nonNull(type: GraphQLOutputType, set: SelectionSetNode | undefined): Schema {
    if (isNonNullType(type)) return this.#nonNull(type.ofType, set);
    if (isListType(type)) return { type: 'array', items: this.#value(type.ofType as GraphQLOutputType, set) };
    const named = getNamedType(type);
    if (isLeafType(named) || set === undefined) return this.#leaves.type(new GraphQLNonNull(named));
    return this.selection(named as GraphQLCompositeType, set);
  }
}

function orNull(schema: Schema): Schema {
  if (typeof schema['type'] === 'string') return { ...schema, type: [schema['type'], 'null'] };
  if (schema['type'] === undefined && schema['$ref'] === undefined && schema['items'] === undefined && schema['properties'] === undefined) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}
