import { chargeMapCopy } from '../value-size.ts';
import { EdgeRef, NodeRef, compareCodePoints, isMap, newMap, type Value, type ValueMap } from '../values.ts';
import { argumentError, defineFunctions, typeError, unary } from './define.ts';
import type { RunContext } from '../run-context.ts';

/** The map keys() and properties() read: a node's stored properties, a relationship's (none), a map itself. */
function propertyMap(v: Value, fn: string, ctx: RunContext): ValueMap | null {
  if (v instanceof NodeRef) {
    const record = ctx.resolve(v);
    return record === null ? null : (record.props as ValueMap);
  }
  if (v instanceof EdgeRef) return newMap();
  if (isMap(v)) return v;
  throw typeError(`${fn}()`, 'a node, relationship or map', v);
}

/** Functions of nodes, relationships and maps. */
export const GRAPH_FUNCTIONS = defineFunctions([
  unary('id', (v) => {
    if (v instanceof NodeRef) return v.id;
    throw typeError('id()', 'a node (edges have no id)', v);
  }),
  // elementId(): a string naming the element. A node's is its id; a relationship, which has no id of
  // its own (an edge is its source, type and target), names them: `["src","TYPE","tgt"]` as JSON,
  // stable for as long as the edge exists. Node ids are any text, so a node could have that very text
  // as its id: an elementId identifies a node among nodes and a relationship among relationships.
  unary('elementId', (v) => {
    if (v instanceof NodeRef) return v.id;
    if (v instanceof EdgeRef) return JSON.stringify([v.edge.src, v.edge.type, v.edge.tgt]);
    throw argumentError('elementId', 'a Node or a Relationship', v);
  }),
  unary('labels', (v, ctx) => {
    if (!(v instanceof NodeRef)) throw typeError('labels()', 'a node', v);
    const record = ctx.resolve(v);
    return record === null ? null : [record.label];
  }),
  unary('type', (v) => {
    if (!(v instanceof EdgeRef)) throw typeError('type()', 'a relationship', v);
    return v.edge.type;
  }),
  unary('keys', (v, ctx) => {
    const map = propertyMap(v, 'keys', ctx);
    if (map === null) return null;
    // A copy of its keys: charged before it is made.
    chargeMapCopy(map, true, ctx.budget);
    return Object.keys(map).sort(compareCodePoints);
  }),
  unary('properties', (v, ctx) => {
    const map = propertyMap(v, 'properties', ctx);
    if (map === null) return null;
    // A copy as large as the map: charged before it is made.
    chargeMapCopy(map, false, ctx.budget);
    const out = newMap();
    for (const k of Object.keys(map)) out[k] = map[k]!;
    return out;
  }),
]);
