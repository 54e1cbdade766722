import { EdgeRef, NodeRef, type Value } from '../values.ts';
import type { RunContext } from '../run-context.ts';
import { defineFunctions, typeError, unary } from './define.ts';

/** A relationship's end node as a node value, or null once it is gone. */
function endpoint(id: string, ctx: RunContext): Value {
  const record = ctx.view.node(id);
  return record ? new NodeRef(record) : null;
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
]);
