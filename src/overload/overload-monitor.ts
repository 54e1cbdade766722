import type { Logger } from '../log/index.ts';
import { processLoadSource, type HeapReading, type LoadReading, type LoadSource } from './load-readings.ts';
import { processOverload, type OverloadCause, type OverloadSignal } from './overload-signal.ts';

/** When the process counts as overloaded (TOOLGRAPH_OVERLOAD_* settings). */
export interface OverloadThresholds {
  /** Percent of V8's heap limit in use at or past which the process is overloaded; 100 turns the check off. */
  readonly heapPercent: number;
  /** Resident set size, bytes, at or past which the process is overloaded (defaultRssWatermark when the setting is unset). */
  readonly rssBytes: number;
  /** Median event-loop delay, ms, at or past which the process is overloaded. */
  readonly eventLoopDelayMs: number;
}

/** Milliseconds between two readings. A reading costs a few microseconds. */
const OVERLOAD_SAMPLE_MS = 250;

const OVERLOAD_SETTINGS = Object.freeze({
  heapPercent: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT',
  rssBytes: 'TOOLGRAPH_OVERLOAD_RSS_BYTES',
  eventLoopDelayMs: 'TOOLGRAPH_OVERLOAD_EVENT_LOOP_DELAY_MS',
} satisfies Record<keyof OverloadThresholds, string>);

export interface OverloadMonitorOptions {
  readonly thresholds: OverloadThresholds;
  /** The signal it sets; the process's own by default. */
  readonly signal?: OverloadSignal;
  /** Where readings come from; the process's heap and event loop by default (tests inject their own). */
  readonly source?: LoadSource;
  readonly sampleMs?: number;
  readonly logger?: Logger;
  /** Monotonic milliseconds; `performance.now` by default. */
  readonly now?: () => number;
}

export interface OverloadMonitor {
  readonly signal: OverloadSignal;
  /** Takes a reading now and sets or clears the signal (the timer calls it every `sampleMs`). */
  sample(): void;
  /** Stops reading and clears the signal. */
  stop(): void;
}

function heapCause(reading: HeapReading, thresholds: OverloadThresholds): OverloadCause | undefined {
  const percent = Math.round((reading.heapUsedBytes / reading.heapLimitBytes) * 1000) / 10;
  if (thresholds.heapPercent >= 100 || percent < thresholds.heapPercent) return undefined;
  return { reason: 'heap', reading: percent, threshold: thresholds.heapPercent, setting: OVERLOAD_SETTINGS.heapPercent };
}

/**
 * The resident set past its watermark while V8 counts at least half the watermark as live (used
 * heap and external memory: buffers, request bodies among them, which the heap percent misses).
 * After a burst the allocator keeps much of what was freed (glibc keeps large freed blocks in its
 * arenas: measured, 4 MiB bodies took the resident set up 465 MiB and it stayed up 238 MiB once
 * they were gone); that memory is reused by new work, so it must not hold the process overloaded
 * with nothing live to shed.
 */
function rssCause(reading: LoadReading, thresholds: OverloadThresholds): OverloadCause | undefined {
  if (reading.rssBytes < thresholds.rssBytes || reading.heapUsedBytes + reading.externalBytes < thresholds.rssBytes / 2) return undefined;
  return { reason: 'rss', reading: reading.rssBytes, threshold: thresholds.rssBytes, setting: OVERLOAD_SETTINGS.rssBytes };
}

/**
 * What, if anything, puts a reading over the thresholds: the heap first (it is the one that kills),
 * then the resident set (rssCause), then the event-loop delay.
 */
export function overloadCauseOf(reading: LoadReading, thresholds: OverloadThresholds): OverloadCause | undefined {
  const heap = heapCause(reading, thresholds);
  if (heap !== undefined) return heap;
  const rss = rssCause(reading, thresholds);
  if (rss !== undefined) return rss;
  const delay = reading.eventLoopDelayMs;
  if (delay === undefined || delay < thresholds.eventLoopDelayMs) return undefined;
  return { reason: 'event-loop-delay', reading: Math.round(delay), threshold: thresholds.eventLoopDelayMs, setting: OVERLOAD_SETTINGS.eventLoopDelayMs };
}

/**
 * Reads the heap, the resident set and the event-loop delay every `sampleMs` and sets the signal while
 * one is past its threshold (the delay on two readings in a row), clearing it at the first reading under both. While the event loop is blocked the
 * timer cannot run, so the signal asks budget checks to take a heap reading through the monitor
 * once two readings are overdue (`OverloadSignal.stallDeadline`).
 */
export function startOverloadMonitor(options: OverloadMonitorOptions): OverloadMonitor {
  const { thresholds, logger } = options;
  const signal = options.signal ?? processOverload;
  const source = options.source ?? processLoadSource();
  const sampleMs = options.sampleMs ?? OVERLOAD_SAMPLE_MS;
  const now = options.now ?? (() => performance.now());

  function apply(cause: OverloadCause | undefined): void {
    if (cause !== undefined) {
      if (signal.cause?.reason !== cause.reason) logger?.warn({ overload: cause }, 'overloaded: refusing new work and stopping running queries');
      signal.enter(cause);
    } else if (signal.overloaded) {
      logger?.info({ overload: signal.cause }, 'load back under the overload thresholds');
      signal.leave();
    }
  }

  // A budget check calls this while the loop is blocked: the heap alone (the delay is the block itself,
  // which the query's time budget bounds), and it only ever sets the signal.
  function stalled(): void {
    const cause = heapCause(source.heap(), thresholds);
    if (cause !== undefined) apply(cause);
    signal.watchStalls(stalled, now() + sampleMs);
  }

  // Readings in a row with the event loop past its threshold.
  let lateReadings = 0;

  function sample(): void {
    const reading = source.read();
    let cause = overloadCauseOf(reading, thresholds);
    if (cause?.reason === 'event-loop-delay') {
      // One late reading is a stall that is already over (this timer runs again): the queries that
      // block the loop are bounded by their own time budget. Only a loop late on two readings in a row
      // (saturated, late on every turn) is overloaded; a delay verdict once given lasts until a calm reading.
      lateReadings++;
      if (lateReadings < 2 && signal.cause?.reason !== 'event-loop-delay') cause = undefined;
    } else if (reading.eventLoopDelayMs !== undefined) lateReadings = 0;
    // No turn of the loop since the previous reading: the delay is unknown, so a delay verdict stands.
    if (!(cause === undefined && reading.eventLoopDelayMs === undefined && signal.cause?.reason === 'event-loop-delay')) apply(cause);
    signal.watchStalls(stalled, now() + 2 * sampleMs);
  }

  signal.watchStalls(stalled, now() + 2 * sampleMs);
  const timer = setInterval(sample, sampleMs);
  timer.unref();
  return {
    signal,
    sample,
    stop() {
      clearInterval(timer);
      signal.watchStalls(undefined, 0);
      signal.leave();
      source.close();
    },
  };
}
