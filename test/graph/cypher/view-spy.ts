import type { CypherEngine } from '../../../src/graph/cypher/index.ts';
import type { GraphEngine, GraphView } from '../../../src/graph/engine/index.ts';

/** How a recorded view call is written down: its method and arguments, as JSON unless told otherwise. */
export type DescribeCall = (method: string, args: readonly unknown[]) => string;

const asJson: DescribeCall = (method, args) => `${method}:${JSON.stringify(args)}`;

/** A Cypher engine over `inner` that records every view method call its statements make, in order. */
export function spyOnViews(inner: GraphEngine, describe: DescribeCall = asJson): { engine: CypherEngine; calls: string[] } {
  const calls: string[] = [];
  const wrap = (view: GraphView): GraphView => new Proxy(view, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(describe(String(key), args));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    engine: {
      read: (name, work) => inner.read(name, (view) => work(wrap(view))),
      transact: (name, work) => inner.transact(name, (view, commit) => work(wrap(view), commit)),
    },
    calls,
  };
}
