import type { DocumentNode, GraphQLError, OperationDefinitionNode } from 'graphql';

export interface Prepared {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode | GraphQLError;
}

/**
 * Documents that parsed and validated, per schema (so per catalogue epoch), then per operation name
 * ('' for none: no GraphQL name is empty, so keys never collide) and document text; a schema keeps
 * at most `max` of them, oldest dropped first. Hand-written on purpose: lru-cache keyed by name and
 * text (one concatenated string per request, hashed whole) took 4.5 to 6 times as long per lookup
 * (`npm run bench -- bounded-maps`: 391 against 2478 ns min, median ratio 6.0); nested Maps hash
 * the text as it came.
 */
export class PreparedDocuments {
  readonly #bySchema = new WeakMap<object, { size: number; byName: Map<string, Map<string, Prepared>> }>();
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  get(schema: object, operationName: string, query: string): Prepared | undefined {
    return this.#bySchema.get(schema)?.byName.get(operationName)?.get(query);
  }
  set(schema: object, operationName: string, query: string, prepared: Prepared): void {
    let entry = this.#bySchema.get(schema);
    if (entry === undefined) {
      entry = { size: 0, byName: new Map() };
      this.#bySchema.set(schema, entry);
    }
    if (entry.size >= this.#max) {
      const [name, oldest] = entry.byName.entries().next().value!;
      oldest.delete(oldest.keys().next().value!);
      if (oldest.size === 0) entry.byName.delete(name);
      entry.size--;
    }
    let byQuery = entry.byName.get(operationName);
    if (byQuery === undefined) {
      byQuery = new Map();
      entry.byName.set(operationName, byQuery);
    }
    if (!byQuery.has(query)) entry.size++;
    byQuery.set(query, prepared);
  }
}
