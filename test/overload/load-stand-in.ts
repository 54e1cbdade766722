import type { HeapReading, LoadReading, LoadSource } from '../../src/overload/index.ts';

/** A LoadSource whose readings the test sets: overload on demand, without filling a heap. */
export class LoadStandIn implements LoadSource {
  heapUsedBytes = 100;
  heapLimitBytes = 1000;
  rssBytes = 100 * 1024 * 1024;
  externalBytes = 10 * 1024 * 1024;
  eventLoopDelayMs: number | undefined = 0;
  reads = 0;
  heapReads = 0;
  closed = false;

  read(): LoadReading {
    this.reads++;
    return { heapUsedBytes: this.heapUsedBytes, heapLimitBytes: this.heapLimitBytes, rssBytes: this.rssBytes, externalBytes: this.externalBytes, eventLoopDelayMs: this.eventLoopDelayMs };
  }

  heap(): HeapReading {
    this.heapReads++;
    return { heapUsedBytes: this.heapUsedBytes, heapLimitBytes: this.heapLimitBytes };
  }

  close(): void {
    this.closed = true;
  }

  /** Readings of a calm process. */
  calm(): void {
    this.heapUsedBytes = 100;
    this.rssBytes = 100 * 1024 * 1024;
    this.externalBytes = 10 * 1024 * 1024;
    this.eventLoopDelayMs = 0;
  }
}
