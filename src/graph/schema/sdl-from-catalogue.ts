import type { GraphCatalogue } from '../engine/index.ts';
import type { NamespaceNames } from './namespace.ts';
import { schemaModelFromCatalogue, type LabelModel, type SchemaModel } from './schema-model.ts';

/** Federation v2.3: has @key, @shareable and @external, and every current router and gateway reads it. */
const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@external"])';

const MUTATION_DOC = `# Mutations. Every mutation field of one operation is one batch: atomic, one version bump.
#   createNode(label, props, id?)  creates a node; props maps property names to values (null: leave
#                                  out); id is assigned when omitted. Returns the node.
#   updateNode(id, set?, unset?)   sets properties (null unsets) and unsets the named ones. Returns the node.
#   deleteNode(id)                 deletes the node and every edge touching it. Returns {ok, id}.
#   addEdge(src, tgt, type)        adds the edge (a no-op when it exists). Returns {ok}.
#   removeEdge(src, tgt, type)     removes the edge (an error when it does not exist). Returns {ok}.
# expectedVersion (on any field; every field that gives it must give the same value) makes the batch
# commit only while the graph is still at that version, else TG_VERSION_CONFLICT and nothing changes.
# Every response carries the graph version it read or wrote in extensions.version.`;

function filterArgs(label: LabelModel): string {
  return ['id: ID', ...label.filters.map((f) => `${f.name}: ${f.graphqlType}`)].join(', ');
}

function printLabel(label: LabelModel, names: NamespaceNames): string {
  const lines = [`type ${label.typeName} implements ${names.nodeType} @key(fields: "id") {`, '  id: ID!'];
  for (const p of label.properties) lines.push(`  ${p.name}: ${p.graphqlType}`);
  for (const e of label.edges) lines.push(`  ${e.name}(first: Int, limit: Int): [${e.targetType}!]!`);
  lines.push('}');
  return lines.join('\n');
}

function printConnection(label: LabelModel): string {
  return [
    `type ${label.connectionType} @shareable {`,
    `  edges: [${label.edgeType}!]!`,
    '  pageInfo: PageInfo!',
    '}',
    '',
    `type ${label.edgeType} @shareable {`,
    `  node: ${label.typeName}!`,
    '  cursor: String!',
    '}',
  ].join('\n');
}

/** A label's lines of the SDL, printed once per LabelModel (the model keeps the object while the label is unchanged). */
interface LabelText {
  readonly query: string;
  readonly subscription: string;
  readonly type: string;
  readonly connection: string;
}

const labelTexts = new WeakMap<LabelModel, LabelText>();

function labelText(label: LabelModel, names: NamespaceNames): LabelText {
  let text = labelTexts.get(label);
  if (text === undefined) {
    const filters = filterArgs(label);
    const list = `  ${label.listField}(first: Int, limit: Int, ${filters}): [${label.typeName}!]!`;
    text = {
      query: `${list}\n  ${label.connectionField}(first: Int, last: Int, after: String, before: String, cursor: String, ${filters}): ${label.connectionType}!`,
      subscription: list,
      type: printLabel(label, names),
      connection: printConnection(label),
    };
    labelTexts.set(label, text);
  }
  return text;
}

/** Prints the model; see schema-model.ts for the naming rules. */
export function sdlFromModel(model: SchemaModel): string {
  const out: string[] = [FEDERATION_LINK, '', '"""Arbitrary JSON: the props of createNode and the set of updateNode."""', 'scalar JSON', ''];

  const query = ['type Query {'];
  const subscription = ['type Subscription {'];
  const names = model.names;
  const f = names.fieldPrefix;
  for (const label of model.labels) {
    const text = labelText(label, names);
    query.push(text.query);
    subscription.push(text.subscription);
  }
  query.push('}');
  subscription.push('}');
  // An empty graph still has a Query type: federation adds _service to it.
  out.push(model.labels.length > 0 ? query.join('\n') : 'type Query', '');

  out.push(f === '' ? MUTATION_DOC : MUTATION_DOC.replace(/^(# {3})(\w+)\((.*)$/gm, (_line, lead: string, name: string, rest: string) => `${lead}${f}${name}(${rest}`), [
    'type Mutation {',
    `  ${f}createNode(label: String!, props: JSON!, id: ID, expectedVersion: Int): ${names.nodeType}!`,
    `  ${f}updateNode(id: ID!, set: JSON, unset: [String!], expectedVersion: Int): ${names.nodeType}!`,
    `  ${f}deleteNode(id: ID!, expectedVersion: Int): DeleteResult!`,
    `  ${f}addEdge(src: ID!, tgt: ID!, type: String!, expectedVersion: Int): EdgeResult!`,
    `  ${f}removeEdge(src: ID!, tgt: ID!, type: String!, expectedVersion: Int): EdgeResult!`,
    '}',
  ].join('\n'), '');

  if (model.labels.length > 0) {
    out.push('# Each root field of a subscription needs an explicit first or limit of at most 100.', subscription.join('\n'), '');
  }

  out.push('"""A node of any label."""', `interface ${names.nodeType} {\n  id: ID!\n}`, '');
  for (const label of model.labels) out.push(labelText(label, names).type, '');
  for (const union of model.unions) out.push(`union ${union.name} = ${union.members.join(' | ')}`, '');
  for (const label of model.labels) out.push(labelText(label, names).connection, '');

  out.push(
    'type PageInfo @shareable {\n  hasNextPage: Boolean!\n  hasPreviousPage: Boolean!\n  startCursor: String\n  endCursor: String\n}', '',
    'type EdgeResult @shareable {\n  ok: Boolean!\n}', '',
    'type DeleteResult @shareable {\n  ok: Boolean!\n  id: ID!\n}',
  );
  return `${out.join('\n')}\n`;
}

/** The subgraph SDL of a graph: deterministic for a given catalogue. */
export function sdlFromCatalogue(catalogue: GraphCatalogue): string {
  return sdlFromModel(schemaModelFromCatalogue(catalogue));
}
