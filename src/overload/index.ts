export { OVERLOAD_RETRY_AFTER_SECS, OverloadSignal, processOverload } from './overload-signal.ts';
export type { OverloadCause } from './overload-signal.ts';
export { processLoadSource } from './load-readings.ts';
export type { HeapReading, LoadReading, LoadSource } from './load-readings.ts';
export { DEFAULT_OVERLOAD_THRESHOLDS, OVERLOAD_SAMPLE_MS, OVERLOAD_SETTINGS, overloadCauseOf, startOverloadMonitor } from './overload-monitor.ts';
export type { OverloadMonitor, OverloadMonitorOptions, OverloadThresholds } from './overload-monitor.ts';
