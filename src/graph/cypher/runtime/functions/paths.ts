import { EdgeRef, NodeRef, PathRef, type Value } from '../values.ts';
import type { RunContext } from '../run-context.ts';
import { LIST_SLOT_BYTES } from '../value-size.ts';
import { defineFunctions, typeError, unary } from './define.ts';

/** A relationship's end node as a node value, or null once it is gone. */
function endpoint(id: string, ctx: RunContext): Value {
  const record = ctx.view.node(id);
  return record ? new NodeRef(record) : null;
}

/** A copy of a path's nodes or relationships as a list: charged by its length before it is made. */
function listOf(items: readonly Value[], ctx: RunContext): Value[] {
  ctx.budget.chargeBytes(items.length * LIST_SLOT_BYTES + 2);
  return items.slice();
}

/** Functions of relationships and paths. */
export const PATH_FUNCTIONS = defineFunctions([
  unary('startNode', (v, ctx) => {
    if (!(v instanceof EdgeRef)) throw typeError('startNode()', 'a relationship', v);
    return endpoint(v.edge.src, ctx);
  }),
  unary('endNode', (v, ctx) => {
    if (!(v instanceof EdgeRef)) throw typeError('endNode()', 'a relationship', v);
    return endpoint(v.edge.tgt, ctx);
  }),
  unary('nodes', (v, ctx) => {
    if (!(v instanceof PathRef)) throw typeError('nodes()', 'a path', v);
    return listOf(v.nodes, ctx);
  }),
  unary('relationships', (v, ctx) => {
    if (!(v instanceof PathRef)) throw typeError('relationships()', 'a path', v);
    return listOf(v.edges, ctx);
  }),
  // Cypher's length() is of a path alone (of a string it is size()): a node, a relationship or a string is a type error.
  unary('length', (v) => {
    if (!(v instanceof PathRef)) throw typeError('length()', 'a path', v);
    return v.edges.length;
  }),
]);
