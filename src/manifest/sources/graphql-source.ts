import {
  Kind, buildASTSchema, getNamedType, isEnumType, isInputObjectType, isInterfaceType, isListType, isNonNullType,
  isObjectType, isScalarType, isUnionType, parse, specifiedScalarTypes, valueFromASTUntyped, visit,
  type DefinitionNode, type GraphQLArgument, type GraphQLField, type GraphQLInputField, type GraphQLNamedType,
  type GraphQLObjectType, type GraphQLSchema, type GraphQLType,
} from 'graphql';
import type { JsonValue } from '../canonical-json.ts';
import type { JsonSchema, OperationSchema, SchemaSource } from '../schema-source.ts';
import { sha256Hex } from '../../digest/index.ts';

export const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
/** Federation plumbing, not operations an agent calls: left out of the catalogue (docs/catalogue.md). */
const FEDERATION_ROOT_FIELDS: readonly string[] = ['_service', '_entities'];

export type Schema = Record<string, JsonValue>;

/**
 * Every root Query and Mutation field of a GraphQL SDL (federation subgraph SDL included). Input: an
 * object of the field's arguments (non-null without default → required). Output: the return type;
 * object, interface, union, enum and input types become `$defs` reached through `$ref`, so recursive
 * types stay finite. Types the SDL uses but does not define (federation's `_Any`, `FieldSet`, …) are
 * read as custom scalars.
 */
export function graphqlSource(name: string, sdlBytes: string | Uint8Array): SchemaSource {
  const bytes = typeof sdlBytes === 'string' ? Buffer.from(sdlBytes, 'utf8') : sdlBytes;
  const schema = schemaFromSdl(Buffer.from(bytes).toString('utf8'));
  const operations = rootOperations(schema).map(({ kind, root, field }) => convertField(schema, kind, root, field));
  return { name, sourceSha256: sha256Hex(bytes), operations };
}

/** A root field that is an operation of the catalogue. */
export interface RootOperation {
  readonly kind: 'Query' | 'Mutation';
  readonly root: GraphQLObjectType;
  readonly field: GraphQLField<unknown, unknown>;
}

/** Every root Query and Mutation field but federation's plumbing, in schema order: the operations of a GraphQL source. */
export function rootOperations(schema: GraphQLSchema): RootOperation[] {
  const operations: RootOperation[] = [];
  for (const [kind, root] of [['Query', schema.getQueryType()], ['Mutation', schema.getMutationType()]] as const) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      if (FEDERATION_ROOT_FIELDS.includes(field.name)) continue;
      operations.push({ kind, root, field });
    }
  }
  return operations;
}

/** The description of an operation: `GraphQL Query.<field>`, then the field's own description. */
export function operationDescription({ kind, root, field }: RootOperation): string {
  const label = `${kind === root.name ? kind : `${kind} (${root.name})`}.${field.name}`;
  return [`GraphQL ${label}`, field.description ?? ''].filter((t) => t.length > 0).join(': ');
}

/** The input schema of a root field: an object of its arguments (complete, with any `$defs`). */
export function inputSchemaOf(schema: GraphQLSchema, field: GraphQLField<unknown, unknown>): Schema {
  const inputs = new TypeConverter(schema);
  const properties: Schema = {};
  const required: string[] = [];
  for (const arg of field.args) {
    properties[arg.name] = inputs.inputValue(arg);
    if (isNonNullType(arg.type) && arg.astNode?.defaultValue === undefined) required.push(arg.name);
  }
  const input: Schema = {
    $schema: DIALECT,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  const inputDefs = inputs.defs();
  if (inputDefs) input['$defs'] = inputDefs;
  return input;
}

/** A schema from SDL that may use federation's directives and types without defining them. */
export function schemaFromSdl(sdl: string): GraphQLSchema {
  const document = parse(sdl);
  const defined = new Set<string>(specifiedScalarTypes.map((t) => t.name));
  const used = new Set<string>();
  for (const definition of document.definitions) {
    if ('name' in definition && definition.name && isTypeDefinition(definition)) defined.add(definition.name.value);
  }
  visit(document, {
    NamedType(node) {
      used.add(node.name.value);
    },
  });
  const missing = [...used].filter((n) => !defined.has(n)).sort();
  const extra = missing.map((n) => `scalar ${n}`).join('\n');
  const full = extra.length === 0 ? document : parse(`${sdl}\n${extra}\n`);
  // Federation directives (@key, @link, …) are not defined in subgraph SDL; skip SDL validation.
  return buildASTSchema(full, { assumeValidSDL: true });
}

function isTypeDefinition(definition: DefinitionNode): boolean {
  return definition.kind === Kind.OBJECT_TYPE_DEFINITION || definition.kind === Kind.INTERFACE_TYPE_DEFINITION
    || definition.kind === Kind.UNION_TYPE_DEFINITION || definition.kind === Kind.ENUM_TYPE_DEFINITION
    || definition.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION || definition.kind === Kind.SCALAR_TYPE_DEFINITION;
}

function convertField(schema: GraphQLSchema, kind: 'Query' | 'Mutation', root: GraphQLObjectType, field: GraphQLField<unknown, unknown>): OperationSchema {
  const input = inputSchemaOf(schema, field);
  const outputs = new TypeConverter(schema);
  const output: Schema = { $schema: DIALECT, ...outputs.type(field.type) };
  const outputDefs = outputs.defs();
  if (outputDefs) output['$defs'] = outputDefs;
  return {
    operation: field.name,
    description: operationDescription({ kind, root, field }),
    input: input as JsonSchema,
    output: output as JsonSchema,
  };
}

/**
 * GraphQL types to JSON Schema. A deep converter (the default) defines every named type it reaches
 * into its `$defs`; a shallow one defines none and only records the names it refers to (`refs`), so
 * each type's definition can be made once and shared (see graphql-schema-entries.ts).
 */
export class TypeConverter {
  readonly #defs = new Map<string, Schema>();
  readonly #schema: GraphQLSchema;
  readonly #shallow: boolean;
  /** Named types referred to by `$ref` (shallow converters). */
  readonly refs = new Set<string>();

  constructor(schema: GraphQLSchema, shallow = false) {
    this.#schema = schema;
    this.#shallow = shallow;
  }

  /** The `$defs` object, names in code-point order, or undefined when no named type was reached. */
  defs(): Schema | undefined {
    if (this.#defs.size === 0) return undefined;
    return Object.fromEntries([...this.#defs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  type(type: GraphQLType): Schema {
    if (isNonNullType(type)) return this.#nonNull(type.ofType);
    return nullable(this.#nonNull(type));
  }

  inputValue(value: GraphQLArgument | GraphQLInputField): Schema {
    const schema = this.type(value.type);
    const extra: Schema = {};
    if (value.description) extra['description'] = value.description;
    if (value.astNode?.defaultValue) extra['default'] = valueFromASTUntyped(value.astNode.defaultValue) as JsonValue;
    if (value.deprecationReason != null) extra['deprecated'] = true;
    return Object.keys(extra).length === 0 ? schema : { ...schema, ...extra };
  }

  #nonNull(type: GraphQLType): Schema {
    if (isNonNullType(type)) return this.#nonNull(type.ofType);
    if (isListType(type)) return { type: 'array', items: this.type(type.ofType) };
    const named = getNamedType(type) as GraphQLNamedType;
    if (isScalarType(named)) return scalarSchema(named.name, named.description);
    if (this.#shallow) this.refs.add(named.name);
    else this.#define(named);
    return { $ref: `#/$defs/${named.name}` };
  }

  #define(named: GraphQLNamedType): void {
    if (this.#defs.has(named.name)) return;
    const def: Schema = {};
    this.#defs.set(named.name, def); // placed first so recursive references stop here
    this.#fill(def, named);
  }

  /** The `$defs` entry of one named type (a shallow converter records what it refers to in `refs`). */
  definitionOf(named: GraphQLNamedType): Schema {
    const def: Schema = {};
    this.#fill(def, named);
    return def;
  }

  #fill(def: Schema, named: GraphQLNamedType): void {
    if (named.description) def['description'] = named.description;
    if (isEnumType(named)) {
      def['type'] = 'string';
      def['enum'] = named.getValues().map((v) => v.name);
    } else if (isUnionType(named)) {
      def['anyOf'] = named.getTypes().map((member) => this.#nonNull(member));
    } else if (isInterfaceType(named)) {
      // A value of an interface type is one of its implementations; with none known, its own fields (open).
      const possible = this.#schema.getPossibleTypes(named);
      if (possible.length > 0) def['anyOf'] = possible.map((member) => this.#nonNull(member));
      else Object.assign(def, this.#fields(Object.values(named.getFields()), false), { additionalProperties: true });
    } else if (isObjectType(named)) {
      Object.assign(def, this.#fields(Object.values(named.getFields()), false));
    } else if (isInputObjectType(named)) {
      Object.assign(def, this.#fields(Object.values(named.getFields()), true));
    }
  }

  #fields(fields: readonly (GraphQLField<unknown, unknown> | GraphQLInputField)[], input: boolean): Schema {
    const properties: Schema = {};
    const required: string[] = [];
    for (const field of fields) {
      if (input) {
        properties[field.name] = this.inputValue(field as GraphQLInputField);
        if (isNonNullType(field.type) && field.astNode?.kind === Kind.INPUT_VALUE_DEFINITION && field.astNode.defaultValue === undefined) required.push(field.name);
      } else {
        const schema = this.type(field.type);
        const extra: Schema = {};
        if (field.description) extra['description'] = field.description;
        if (field.deprecationReason != null) extra['deprecated'] = true;
        properties[field.name] = Object.keys(extra).length === 0 ? schema : { ...schema, ...extra };
        if (isNonNullType(field.type)) required.push(field.name);
      }
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
  }
}

function scalarSchema(name: string, description: string | null | undefined): Schema {
  switch (name) {
    case 'ID':
    case 'String':
      return { type: 'string' };
    case 'Int':
      return { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    default:
      return { description: `GraphQL custom scalar ${name}${description ? `: ${description}` : ''}` };
  }
}

/** Lets a schema also accept null: `type: [t, "null"]` for a plain type, `anyOf` otherwise; `{}`-like schemas already do. */
function nullable(schema: Schema): Schema {
  if (typeof schema['type'] === 'string') return { ...schema, type: [schema['type'], 'null'] };
  if (schema['type'] === undefined && schema['$ref'] === undefined && schema['anyOf'] === undefined && schema['items'] === undefined) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}
