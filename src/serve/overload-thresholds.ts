import type { ResolvedValues } from '../config/index.ts';
import { defaultRssWatermark, type OverloadThresholds } from '../overload/index.ts';

/** When the process sheds load, from the TOOLGRAPH_OVERLOAD_* settings (the RSS watermark from the machine and heap limit when unset). */
export function overloadThresholdsOf(values: Pick<ResolvedValues, 'overloadHeapPercent' | 'overloadRssBytes' | 'overloadEventLoopDelayMs'>): OverloadThresholds {
  return Object.freeze({ heapPercent: values.overloadHeapPercent, rssBytes: values.overloadRssBytes ?? defaultRssWatermark(), eventLoopDelayMs: values.overloadEventLoopDelayMs });
}
