import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

/**
 * The resident-set watermark when TOOLGRAPH_OVERLOAD_RSS_BYTES is unset: the smaller of 90% of the
 * memory the process may use (its cgroup limit when it has one, else the machine's) and 1.5 times the
 * V8 heap limit. The first keeps the process shedding load before the out-of-memory killer ends it;
 * the second leaves the heap room to reach its own threshold (90% of its limit by default) with
 * buffers and code beside it, while memory the heap does not count (buffers held by thousands of
 * requests) cannot grow past half the heap limit unnoticed.
 */
export function defaultRssWatermark(): number {
  const machine = totalmem();
  // 0 when unknown; a huge number when unconstrained.
  const constrained = process.constrainedMemory();
  const available = constrained > 0 ? Math.min(constrained, machine) : machine;
  return Math.floor(Math.min(0.9 * available, 1.5 * getHeapStatistics().heap_size_limit));
}
