import type { GraphEngine, ScanOptions } from '../../src/graph/engine/index.ts';

/** Records the options of every scan a request makes. */
export function scanning(base: GraphEngine): { engine: GraphEngine; scans: ScanOptions[] } {
  const scans: ScanOptions[] = [];
  const engine = new Proxy(base, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== 'view') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return (graph: string) => new Proxy(target.view(graph), {
        get(view, p) {
          const member = Reflect.get(view, p, view) as unknown;
          if (p !== 'scan') return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(view) : member;
          return (label: string, options: ScanOptions = {}) => {
            scans.push(options);
            return view.scan(label, options);
          };
        },
      });
    },
  });
  return { engine, scans };
}
