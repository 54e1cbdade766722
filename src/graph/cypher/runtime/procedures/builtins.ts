/**
 * The procedures every statement may call: what the graph holds, as the caller may read it.
 *
 * Access: Cypher reads run on the caller's view of the graph (src/graph/access: engineAs gives a
 * principal with row rules a FilteredView, one without a read grant never gets a view at all). These
 * procedures read only that view, and list a label only when the view shows at least one node of
 * it: a label whose every node the caller's row rules hide is absent, and so are its property keys
 * and the relationship types that touch only hidden labels. What is left is the graph's catalogue
 * (its schema: what GraphQL introspection shows the same caller) restricted to the labels the caller
 * can read; no property value is read.
 */
import type { GraphView } from '../../../engine/index.ts';
import { LIST_SLOT_BYTES } from '../value-size.ts';
import { compareCodePoints } from '../values.ts';
import type { Procedure, ProcedureBudget } from './procedure.ts';

/**
 * The labels of `view` with at least one node it shows, in code-point order (the catalogue's order):
 * one budget unit and a one-node scan per label of the catalogue, the set charged before it is built.
 */
function readableLabels(view: GraphView, budget: ProcedureBudget): string[] {
  const all = view.labels();
  budget.chargeBytes(LIST_SLOT_BYTES * all.length);
  const out: string[] = [];
  for (const label of all) {
    budget.tick(1);
    if (view.scan(label, { first: 1 }).length > 0) out.push(label);
  }
  return out;
}

const dbLabels: Procedure = {
  name: 'db.labels',
  description: 'the labels of the nodes you can read',
  parameters: [],
  outputs: [{ name: 'label', type: 'STRING' }],
  *rows(_args, { view, budget }) {
    for (const label of view.labels()) {
      budget.tick(1);
      if (view.scan(label, { first: 1 }).length > 0) yield [label];
    }
  },
};

const dbRelationshipTypes: Procedure = {
  name: 'db.relationshipTypes',
  description: 'the relationship types of the catalogue that join labels you can read',
  parameters: [],
  outputs: [{ name: 'relationshipType', type: 'STRING' }],
  *rows(_args, { view, budget }) {
    const readable = new Set(readableLabels(view, budget));
    for (const info of view.catalogue.edgeTypes) {
      budget.tick(1 + info.pairs.length);
      if (info.pairs.some((pair) => readable.has(pair.src) && readable.has(pair.tgt))) yield [info.type];
    }
  },
};

const dbPropertyKeys: Procedure = {
  name: 'db.propertyKeys',
  description: 'the property keys of the catalogue on labels you can read',
  parameters: [],
  outputs: [{ name: 'propertyKey', type: 'STRING' }],
  *rows(_args, { view, budget }) {
    const readable = new Set(readableLabels(view, budget));
    const keys = new Set<string>();
    for (const info of view.catalogue.labels) {
      if (!readable.has(info.label)) continue;
      const names = Object.keys(info.properties);
      budget.chargeBytes(LIST_SLOT_BYTES * names.length);
      for (const key of names) keys.add(key);
    }
    for (const key of [...keys].sort(compareCodePoints)) {
      budget.tick(1);
      yield [key];
    }
  },
};

/** The built-in procedures, by name. */
export const BUILTIN_PROCEDURES: readonly Procedure[] = [dbLabels, dbPropertyKeys, dbRelationshipTypes];
