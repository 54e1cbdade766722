import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export interface HeapReading {
  /** V8's used heap (live objects and garbage not yet collected). */
  readonly heapUsedBytes: number;
  /** The most the heap may grow to before V8 aborts the process. */
  readonly heapLimitBytes: number;
}

export interface LoadReading extends HeapReading {
  /**
   * The process's resident set size: the heap and everything beside it (buffers, request bodies,
   * native allocations), what the machine or the cgroup pays and its out-of-memory killer counts.
   */
  readonly rssBytes: number;
  /**
   * Memory V8 counts outside its heap as live: ArrayBuffers (Buffers among them, request bodies too)
   * and external strings. With the used heap, what of the resident set is live rather than kept by
   * the allocator after a burst.
   */
  readonly externalBytes: number;
  /** Median event-loop delay since the previous reading, in ms; undefined when the loop did not turn in between. */
  readonly eventLoopDelayMs: number | undefined;
}

/** Where an OverloadMonitor takes its readings: the process itself, or a test's stand-in. */
export interface LoadSource {
  /** Heap, resident set and event-loop delay since the previous `read()`. */
  read(): LoadReading;
  /** The heap alone (about half a microsecond): what a budget check can take while the loop is blocked. */
  heap(): HeapReading;
  close(): void;
}

/** The event-loop delay histogram's timer period. */
const RESOLUTION_MS = 10;

/**
 * The process's own readings: `v8.getHeapStatistics()`, `process.memoryUsage()` (its resident set a
 * read of /proc/self/stat, some microseconds: on the monitor's timer only, never in a budget check) and a
 * `monitorEventLoopDelay` histogram. The median delay, not the maximum: one long synchronous block
 * counts once, while a saturated loop is late on every turn.
 */
export function processLoadSource(): LoadSource {
  const delays = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delays.enable();
  const heap = (): HeapReading => {
    const stats = getHeapStatistics();
    return { heapUsedBytes: stats.used_heap_size, heapLimitBytes: stats.heap_size_limit };
  };
  return {
    heap,
    read() {
      // The histogram records the time between its timer's turns: the delay is what exceeds the period.
      const eventLoopDelayMs = delays.count === 0 ? undefined : Math.max(0, delays.percentile(50) / 1e6 - RESOLUTION_MS);
      delays.reset();
      const usage = process.memoryUsage();
      return { ...heap(), rssBytes: usage.rss, externalBytes: usage.external, eventLoopDelayMs };
    },
    close: () => delays.disable(),
  };
}
