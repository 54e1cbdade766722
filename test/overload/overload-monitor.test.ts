import { afterEach, describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../src/errors/index.ts';
import { QueryBudget } from '../../src/graph/budget/index.ts';
import {
  OverloadSignal, overloadCauseOf, processLoadSource, processOverload, startOverloadMonitor, type LoadReading, type OverloadMonitor,
} from '../../src/overload/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { LoadStandIn } from './load-stand-in.ts';

const GIB = 1024 * 1024 * 1024;
const thresholds = { heapPercent: 90, rssBytes: 2 * GIB, eventLoopDelayMs: 500 };

let monitor: OverloadMonitor | undefined;
afterEach(() => {
  monitor?.stop();
  monitor = undefined;
});

describe('overloadCauseOf', () => {
  const reading = (heapUsedBytes: number, eventLoopDelayMs: number | undefined, rssBytes = GIB, externalBytes = GIB): LoadReading => ({ heapUsedBytes, heapLimitBytes: 1000, rssBytes, externalBytes, eventLoopDelayMs });
  it.each<[string, LoadReading, object | undefined]>([
    ['calm', reading(100, 3), undefined],
    ['heap just under', reading(899, 3), undefined],
    ['heap at the threshold', reading(900, 3), { reason: 'heap', reading: 90, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' }],
    ['delay just under', reading(100, 499.9), undefined],
    ['delay at the threshold', reading(100, 500.4), { reason: 'event-loop-delay', reading: 500, threshold: 500, setting: 'TOOLGRAPH_OVERLOAD_EVENT_LOOP_DELAY_MS' }],
    ['no turn of the loop', reading(100, undefined), undefined],
    ['both: the heap is named', reading(950, 2000), { reason: 'heap', reading: 95, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' }],
    ['resident set just under', reading(100, 3, 2 * GIB - 1), undefined],
    ['resident set at the watermark, the heap calm', reading(100, 3, 2 * GIB), { reason: 'rss', reading: 2 * GIB, threshold: 2 * GIB, setting: 'TOOLGRAPH_OVERLOAD_RSS_BYTES' }],
    ['resident set and delay: the resident set is named', reading(100, 2000, 3 * GIB), { reason: 'rss', reading: 3 * GIB, threshold: 2 * GIB, setting: 'TOOLGRAPH_OVERLOAD_RSS_BYTES' }],
    ['resident set past it, but V8 counts under half the watermark live (the allocator kept a burst\'s memory)', reading(100, 3, 3 * GIB, GIB - 101), undefined],
    ['heap and resident set: the heap is named', reading(950, 3, 3 * GIB), { reason: 'heap', reading: 95, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' }],
  ])('%s', (_name, given, want) => {
    expect(overloadCauseOf(given, thresholds)).toEqual(want);
  });

  it('never names the heap when its threshold is 100 (off)', () => {
    expect(overloadCauseOf(reading(999, 0), { ...thresholds, heapPercent: 100 })).toBeUndefined();
  });
});

describe('startOverloadMonitor', () => {
  it('sets the signal while a reading is over a threshold and clears it at the first calm one, logging both', async () => {
    const { lines, logger } = captureLogger('info');
    const load = new LoadStandIn();
    const signal = new OverloadSignal();
    monitor = startOverloadMonitor({ thresholds, signal, source: load, logger });
    monitor.sample();
    expect(signal.overloaded).toBe(false);

    load.heapUsedBytes = 930;
    monitor.sample();
    expect(signal.overloaded).toBe(true);
    expect(signal.cause).toEqual({ reason: 'heap', reading: 93, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' });
    const refusal = signal.refusal();
    expect(refusal).toBeInstanceOf(ToolgraphError);
    expect(refusal.code).toBe('TG_OVERLOADED');
    expect(refusal.status).toBe(503);
    expect(refusal.message).toBe('toolgraph is overloaded: the heap is at 93% of its limit (TOOLGRAPH_OVERLOAD_HEAP_PERCENT is 90). New work is refused and running queries are stopped until it recovers; retry in 1 s.');
    expect(refusal.details).toEqual({ reason: 'heap', reading: 93, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT', retryAfterSecs: 1 });

    load.calm();
    load.eventLoopDelayMs = 800;
    monitor.sample();
    monitor.sample();
    expect(signal.cause).toMatchObject({ reason: 'event-loop-delay', reading: 800 });
    expect(signal.refusal().message).toContain('the event loop is running 800 ms behind (TOOLGRAPH_OVERLOAD_EVENT_LOOP_DELAY_MS is 500)');

    // A window in which the loop never turned says nothing about the delay: the verdict stands.
    load.eventLoopDelayMs = undefined;
    monitor.sample();
    expect(signal.overloaded).toBe(true);

    load.calm();
    monitor.sample();
    expect(signal.overloaded).toBe(false);
    expect(signal.cause).toBeUndefined();
    const messages = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    // The heap recovered at the first late reading of the loop, which alone does not shed.
    expect(messages.map((m) => m.msg)).toEqual([
      'overloaded: refusing new work and stopping running queries',
      'load back under the overload thresholds',
      'overloaded: refusing new work and stopping running queries',
      'load back under the overload thresholds',
    ]);
  });

  it('does not shed after one late reading (a stall already over), only when the loop is late on two in a row', () => {
    const load = new LoadStandIn();
    const signal = new OverloadSignal();
    monitor = startOverloadMonitor({ thresholds, signal, source: load });
    // A query held the loop 4 s once; the loop turns on time again afterwards.
    load.eventLoopDelayMs = 4_260;
    monitor.sample();
    expect(signal.overloaded).toBe(false);
    load.calm();
    monitor.sample();
    expect(signal.overloaded).toBe(false);
    // Late on every reading: saturated.
    load.eventLoopDelayMs = 700;
    monitor.sample();
    expect(signal.overloaded).toBe(false);
    monitor.sample();
    expect(signal.cause).toMatchObject({ reason: 'event-loop-delay', reading: 700 });
    load.eventLoopDelayMs = 900;
    monitor.sample();
    expect(signal.cause).toMatchObject({ reason: 'event-loop-delay', reading: 900 });
    load.calm();
    monitor.sample();
    expect(signal.overloaded).toBe(false);
  });

  it('takes readings on its own timer', async () => {
    const load = new LoadStandIn();
    const signal = new OverloadSignal();
    monitor = startOverloadMonitor({ thresholds, signal, source: load, sampleMs: 20 });
    load.heapUsedBytes = 990;
    await expect.poll(() => signal.overloaded, { timeout: 5_000 }).toBe(true);
    load.calm();
    await expect.poll(() => signal.overloaded, { timeout: 5_000 }).toBe(false);
  });

  it('stop() clears the signal, its stall watch and the source', () => {
    const load = new LoadStandIn();
    const signal = new OverloadSignal();
    const stopped = startOverloadMonitor({ thresholds, signal, source: load });
    load.heapUsedBytes = 990;
    stopped.sample();
    expect(signal.overloaded).toBe(true);
    expect(signal.stallDeadline).toBeLessThan(Number.POSITIVE_INFINITY);
    stopped.stop();
    expect(signal.overloaded).toBe(false);
    expect(signal.stallDeadline).toBe(Number.POSITIVE_INFINITY);
    expect(load.closed).toBe(true);
  });

  it('reads the process: a heap under its limit, its resident set, and a delay once the loop has turned', async () => {
    const source = processLoadSource();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const reading = source.read();
      expect(reading.heapUsedBytes).toBeGreaterThan(0);
      expect(reading.heapUsedBytes).toBeLessThan(reading.heapLimitBytes);
      // The resident set holds the heap and more.
      expect(reading.rssBytes).toBeGreaterThan(reading.heapUsedBytes);
      expect(reading.rssBytes).toBe(Math.round(reading.rssBytes));
      expect(reading.eventLoopDelayMs).toBeGreaterThanOrEqual(0);
    } finally {
      source.close();
    }
  });
});

describe('a running query and the overload signal', () => {
  it('stops at its next budget check once the signal is set, not before', () => {
    const signal = new OverloadSignal();
    const budget = new QueryBudget({ maxRows: 1_000_000, maxResultBytes: 1 << 20, timeoutMs: 60_000, maxStallMs: 60_000 }, { overload: signal });
    budget.addRows(200);
    signal.enter({ reason: 'heap', reading: 95, threshold: 90, setting: 'TOOLGRAPH_OVERLOAD_HEAP_PERCENT' });
    // Between two checks (every 256 units) the budget does not look.
    budget.addRows(55);
    let stopped: unknown;
    try {
      budget.addRows(1);
    } catch (error) {
      stopped = error;
    }
    expect(stopped).toBeInstanceOf(ToolgraphError);
    expect((stopped as ToolgraphError).code).toBe('TG_OVERLOADED');
    expect(() => budget.checkTime()).toThrow(/toolgraph is overloaded: the heap is at 95%/);
    signal.leave();
    expect(() => budget.checkTime()).not.toThrow();
  });

  it('takes a heap reading itself when the monitor has missed its readings (a blocked event loop)', () => {
    const load = new LoadStandIn();
    const signal = new OverloadSignal();
    // The monitor's clock is ten seconds behind: its readings are long overdue, as under a blocked loop.
    monitor = startOverloadMonitor({ thresholds, signal, source: load, now: () => performance.now() - 10_000 });
    const budget = new QueryBudget(undefined, { overload: signal });
    budget.checkTime();
    expect(load.heapReads).toBe(1);
    expect(signal.overloaded).toBe(false);
    load.heapUsedBytes = 960;
    expect(() => budget.checkTime()).toThrow(expect.objectContaining({ code: 'TG_OVERLOADED' }));
    expect(load.heapReads).toBe(2);
    // The heap alone: the event-loop reading (and its histogram) is the timer's.
    expect(load.reads).toBe(0);
  });

  it('reads the process signal by default', () => {
    const budget = new QueryBudget();
    budget.checkTime();
    processOverload.enter({ reason: 'event-loop-delay', reading: 1500, threshold: 1000, setting: 'TOOLGRAPH_OVERLOAD_EVENT_LOOP_DELAY_MS' });
    try {
      expect(() => budget.checkTime()).toThrow(expect.objectContaining({ code: 'TG_OVERLOADED' }));
    } finally {
      processOverload.leave();
    }
  });
});
