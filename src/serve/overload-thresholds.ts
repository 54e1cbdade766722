import type { ResolvedValues } from '../config/index.ts';
import type { OverloadThresholds } from '../overload/index.ts';

/** When the process sheds load, from the TOOLGRAPH_OVERLOAD_* settings. */
export function overloadThresholdsOf(values: Pick<ResolvedValues, 'overloadHeapPercent' | 'overloadEventLoopDelayMs'>): OverloadThresholds {
  return Object.freeze({ heapPercent: values.overloadHeapPercent, eventLoopDelayMs: values.overloadEventLoopDelayMs });
}
