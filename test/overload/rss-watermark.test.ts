import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRssWatermark, OverloadSignal, startOverloadMonitor, type OverloadMonitor } from '../../src/overload/index.ts';
import { LoadStandIn } from './load-stand-in.ts';

const MIB = 1024 * 1024;

let monitor: OverloadMonitor | undefined;
afterEach(() => {
  monitor?.stop();
  monitor = undefined;
});

describe('the resident-set watermark', () => {
  it('sheds load while the resident set is past it, though the heap is calm, and names it', () => {
    const load = new LoadStandIn();
    const signal = new OverloadSignal();
    monitor = startOverloadMonitor({ thresholds: { heapPercent: 90, rssBytes: 512 * MIB, eventLoopDelayMs: 1000 }, signal, source: load });
    load.rssBytes = 600 * MIB;
    load.externalBytes = 400 * MIB;
    monitor.sample();
    expect(signal.overloaded).toBe(true);
    expect(signal.cause).toEqual({ reason: 'rss', reading: 600 * MIB, threshold: 512 * MIB, setting: 'TOOLGRAPH_OVERLOAD_RSS_BYTES' });
    expect(signal.refusal().message).toBe(`toolgraph is overloaded: its resident set is 600 MiB, past 512 MiB (TOOLGRAPH_OVERLOAD_RSS_BYTES is ${512 * MIB}). New work is refused and running queries are stopped until it recovers; retry in 1 s.`);
    load.rssBytes = 500 * MIB;
    monitor.sample();
    expect(signal.overloaded).toBe(false);
  });

  it('does not hold the process overloaded on memory the allocator kept after a burst, which V8 no longer counts live', () => {
    const load = new LoadStandIn();
    const signal = new OverloadSignal();
    monitor = startOverloadMonitor({ thresholds: { heapPercent: 90, rssBytes: 512 * MIB, eventLoopDelayMs: 1000 }, signal, source: load });
    load.rssBytes = 700 * MIB;
    load.externalBytes = 600 * MIB;
    monitor.sample();
    expect(signal.cause?.reason).toBe('rss');
    // The bodies are gone (external memory back down); the resident set stays up.
    load.externalBytes = 20 * MIB;
    monitor.sample();
    expect(signal.overloaded).toBe(false);
    // Half the watermark live again, with the resident set past it: overloaded.
    load.externalBytes = 256 * MIB;
    monitor.sample();
    expect(signal.cause?.reason).toBe('rss');
  });

  it('defaults to the smaller of 90% of the memory the process may use and 1.5 times the heap limit', () => {
    const constrained = process.constrainedMemory();
    const available = constrained > 0 ? Math.min(constrained, totalmem()) : totalmem();
    const heapLimit = getHeapStatistics().heap_size_limit;
    const watermark = defaultRssWatermark();
    expect(watermark).toBe(Math.floor(Math.min(0.9 * available, 1.5 * heapLimit)));
    expect(watermark).toBeGreaterThan(heapLimit);
  });
});
