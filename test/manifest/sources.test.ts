import { describe, expect, it } from 'vitest';
import { graphqlSource, openApiSource, sha256Hex, toolActionSource } from '../../src/manifest/index.ts';

const OPENAPI = `
openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /trees/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
      - { name: verbose, in: query, schema: { type: boolean } }
    post:
      operationId: growTree
      summary: Grow a tree
      parameters:
        - { name: verbose, in: query, required: true, description: Say more, schema: { type: integer } }
        - { name: X-Trace, in: header, schema: { type: string } }
        - $ref: '#/components/parameters/Depth'
      requestBody:
        required: true
        content:
          text/plain: { schema: { type: string } }
          application/json: { schema: { $ref: '#/components/schemas/Tree' } }
      responses:
        '404': { description: missing }
        '201':
          description: Created
          content: { application/json: { schema: { $ref: '#/components/schemas/Tree/properties/children' } } }
        '200':
          $ref: '#/components/responses/TreeOk'
  /ping:
    get:
      responses: { '204': { description: nothing } }
components:
  parameters:
    Depth: { name: depth, in: query, schema: { type: integer, minimum: 0 } }
  responses:
    TreeOk:
      description: The tree
      content: { application/json: { schema: { $ref: '#/components/schemas/Tree' } } }
  schemas:
    Tree:
      type: object
      properties:
        name: { type: string }
        children: { type: array, items: { $ref: '#/components/schemas/Tree' } }
        meta: { $ref: 'external.json#/Meta' }
    Unused: { type: string }
`;

describe('openApiSource', () => {
  const source = openApiSource('trees', OPENAPI, {
    resolveExternal: (uri) => (uri === 'external.json' ? { Meta: { type: 'object', title: 'Meta' } } : undefined),
  });

  it('digests the document bytes and names operations by operationId', () => {
    expect(source.sourceSha256).toBe(sha256Hex(OPENAPI));
    expect(source.operations.map((o) => o.operation)).toEqual(['growTree', 'GET /ping']);
    expect(source.operations[0]!.description).toBe('POST /trees/{id}: Grow a tree');
  });

  it('groups parameters by location (operation overrides path item) and adds the JSON body', () => {
    const input = source.operations[0]!.input;
    expect(input).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['path', 'query', 'body'],
      properties: {
        path: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
        query: {
          type: 'object',
          properties: { verbose: { type: 'integer', description: 'Say more' }, depth: { type: 'integer', minimum: 0 } },
          required: ['verbose'],
          additionalProperties: false,
        },
        header: { type: 'object', properties: { 'X-Trace': { type: 'string' } } },
        body: { $ref: '#/$defs/Tree' },
      },
    });
    expect(input['properties']).not.toHaveProperty('header.additionalProperties');
    expect(Object.keys(input['$defs'] as object)).toEqual(['Tree']);
  });

  it('keeps recursive types recursive through $defs and inlines external references', () => {
    const defs = source.operations[0]!.input['$defs'] as Record<string, { properties: Record<string, unknown> }>;
    expect(defs['Tree']!.properties['children']).toEqual({ type: 'array', items: { $ref: '#/$defs/Tree' } });
    expect(defs['Tree']!.properties['meta']).toEqual({ type: 'object', title: 'Meta' });
  });

  it('takes the lowest 2xx response as the output, following response $refs', () => {
    const output = source.operations[0]!.output;
    expect(output).toMatchObject({ $ref: '#/$defs/Tree', description: 'The tree' });
    expect(Object.keys(output['$defs'] as object)).toEqual(['Tree']);
  });

  it('describes a body-less success response as null and an empty input as an empty object', () => {
    const ping = source.operations[1]!;
    expect(ping.input).toEqual({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, additionalProperties: false });
    expect(ping.output).toMatchObject({ type: 'null' });
  });
});

const SDL = `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
scalar JSON
"""A person."""
type Person @key(fields: "id") { id: ID! name: String friends: [Person!]! pet: Pet role: Role! data: JSON age: Int score: Float ok: Boolean }
type Dog { barks: Boolean! }
type Cat { meows: Boolean! }
union Pet = Dog | Cat
interface Node { id: ID! }
type Thing implements Node { id: ID! }
enum Role { ADMIN USER }
input PersonFilter { name: String!, limit: Int = 10, nested: PersonFilter }
type Query {
  "Find people"
  people(filter: PersonFilter, first: Int! = 5, ids: [ID!]!): [Person!]!
  node(id: ID!): Node
  _service: _Service!
  _entities(representations: [_Any!]!): [_Entity]!
}
type Mutation { people(name: String!): Person! }
type _Service { sdl: String }
union _Entity = Person
`;

describe('graphqlSource', () => {
  const source = graphqlSource('g', SDL);
  const [people, node, mutation] = source.operations;

  it('lists root Query and Mutation fields, leaving out federation plumbing', () => {
    expect(source.operations.map((o) => o.operation)).toEqual(['people', 'node', 'people']);
    expect(people!.description).toBe('GraphQL Query.people: Find people');
    expect(mutation!.description).toBe('GraphQL Mutation.people');
    expect(source.sourceSha256).toBe(sha256Hex(SDL));
  });

  it('turns arguments into the input: non-null without default is required, defaults kept, input types in $defs', () => {
    expect(people!.input).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['ids'],
      properties: {
        filter: { anyOf: [{ $ref: '#/$defs/PersonFilter' }, { type: 'null' }] },
        first: { type: 'integer', default: 5 },
        ids: { type: 'array', items: { type: 'string' } },
      },
    });
    expect((people!.input['$defs'] as Record<string, unknown>)['PersonFilter']).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string' },
        limit: { type: ['integer', 'null'], minimum: -2147483648, maximum: 2147483647, default: 10 },
        nested: { anyOf: [{ $ref: '#/$defs/PersonFilter' }, { type: 'null' }] },
      },
    });
  });

  it('turns the return type into the output with recursive $defs, scalars, enums, unions and custom scalars', () => {
    expect(people!.output).toMatchObject({ type: 'array', items: { $ref: '#/$defs/Person' } });
    const defs = people!.output['$defs'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(defs)).toEqual(['Cat', 'Dog', 'Person', 'Pet', 'Role']);
    expect(defs['Person']).toMatchObject({
      description: 'A person.',
      required: ['id', 'friends', 'role'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { type: ['string', 'null'] },
        friends: { type: 'array', items: { $ref: '#/$defs/Person' } },
        pet: { anyOf: [{ $ref: '#/$defs/Pet' }, { type: 'null' }] },
        role: { $ref: '#/$defs/Role' },
        data: { description: 'GraphQL custom scalar JSON' },
        age: { type: ['integer', 'null'] },
        score: { type: ['number', 'null'] },
        ok: { type: ['boolean', 'null'] },
      },
    });
    expect(defs['Pet']).toEqual({ anyOf: [{ $ref: '#/$defs/Dog' }, { $ref: '#/$defs/Cat' }] });
    expect(defs['Role']).toEqual({ type: 'string', enum: ['ADMIN', 'USER'] });
  });

  it('types an interface as any of its implementations', () => {
    expect(node!.output).toMatchObject({ anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] });
    expect((node!.output['$defs'] as Record<string, unknown>)['Node']).toEqual({ anyOf: [{ $ref: '#/$defs/Thing' }] });
  });
});

describe('toolActionSource', () => {
  it('makes one operation per action, digesting the action list in name order', () => {
    const a = { name: 'b_action', description: 'B', inputSchema: { type: 'object' }, outputSchema: {} };
    const b = { name: 'a_action', description: 'A', inputSchema: {}, outputSchema: { type: 'string' } };
    const one = toolActionSource('tools', [a, b]);
    const two = toolActionSource('tools', [b, a]);
    expect(one.sourceSha256).toBe(two.sourceSha256);
    expect(one.operations.map((o) => o.operation)).toEqual(['a_action', 'b_action']);
    expect(one.operations[1]).toEqual({ operation: 'b_action', description: 'B', input: { type: 'object' }, output: {} });
  });
});
