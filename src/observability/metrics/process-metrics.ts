import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/**
 * The process's own metrics (heap, event-loop lag, GC, CPU, file descriptors: prom-client's default
 * collectors), in one registry per process: they describe the process, not a server, and their
 * collectors (an event-loop delay histogram, a GC observer) cannot be stopped, so several servers in
 * one process (tests) share them instead of stacking them up. Created on first use.
 */
export function processRegistry(): Registry {
  if (shared === undefined) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
