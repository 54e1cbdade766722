export { OVERLOAD_RETRY_AFTER_SECS, OverloadSignal, processOverload } from './overload-signal.ts';
export { processLoadSource } from './load-readings.ts';
export type { HeapReading, LoadReading, LoadSource } from './load-readings.ts';
export { overloadCauseOf, startOverloadMonitor } from './overload-monitor.ts';
export type { OverloadMonitor, OverloadThresholds } from './overload-monitor.ts';
export { defaultRssWatermark } from './rss-watermark.ts';
