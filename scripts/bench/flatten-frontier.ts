// Shared by the benchmark suites that walk the engine by hand (engine, cypher).
import type { NodeRecord } from '../../src/graph/engine/index.ts';

/**
 * The next BFS frontier from one `expandEach` answer: every list's nodes in order, in an array of exact
 * size, as GraphQL shaping builds it (src/graph/graphql/shape-nodes.ts). Growing it with `push` costs
 * about twice as much, which would flatter whatever is compared against this baseline.
 */
export function flattenFrontier(lists: readonly (readonly NodeRecord[])[]): NodeRecord[] {
  let total = 0;
  for (let j = 0; j < lists.length; j++) total += lists[j]!.length;
  const frontier: NodeRecord[] = new Array(total);
  let k = 0;
  for (let j = 0; j < lists.length; j++) {
    const list = lists[j]!;
    for (let i = 0; i < list.length; i++) frontier[k++] = list[i]!;
  }
  return frontier;
}
