import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger } from '../../support/capture-logger.ts';
import { startFixture, type CarrierFixture } from './carrier-fixture.ts';

// A file of its own: its 5 MB frames leave the allocator's thresholds raised, which would blur the
// RSS measurement of carrier-bounds.test.ts's subscribe/unsubscribe cycles in the same process.
let fixture: CarrierFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('carrier slow readers and large frames', () => {
  it('holds at most 1 MiB unsent per connection (the default cap), even for a 5 MB frame, which goes out in slices', async () => {
    const { lines, logger } = captureLogger('info');
    fixture = await startFixture({ logger });
    const f = fixture;
    const CAP = 1024 * 1024;
    // Five blobs of 1,000,000 characters: each frame is about 5 MB, under the 8 MiB frame limit.
    const body = (n: number, i: number) => `${n}:${i}:`.padEnd(1_000_000, 'x');
    await f.commit(...Array.from({ length: 5 }, (_v, i) => ({ op: 'createNode' as const, id: `huge${i}`, label: 'Blob', props: { body: body(0, i) } })));
    const query = 'subscription { Blob(first: 5) { id body } }';
    const reader = await f.subscribe(await f.sign({ query }));
    const stopper = await f.subscribe(await f.sign({ query, subject: 'slow' }));
    stopper.stopReading();
    await reader.until((c) => c.events.length === 1, 'reader initial', 60_000);
    let frames = 1;
    while (f.carrier.stats().sessions === 2 && frames < 20) {
      await f.commit(...Array.from({ length: 5 }, (_v, i) => ({ op: 'updateNode' as const, id: `huge${i}`, set: { body: body(frames, i) } })));
      frames++;
      await reader.until((c) => c.events.length === frames, `reader frame ${frames}`, 60_000);
    }
    // The reader that stopped was cut off; the one that reads got every frame whole, in order.
    expect(f.carrier.stats().sessions).toBe(1);
    expect(reader.frames()).toEqual(Array.from({ length: frames }, (_v, n) => ({
      data: { Blob: Array.from({ length: 5 }, (_w, i) => ({ id: `huge${i}`, body: body(n, i) })) },
    })));
    // No connection held more than the cap in the process, though every frame was five times it.
    const { peakQueuedBytes } = f.carrier.stats();
    expect(peakQueuedBytes).toBeGreaterThan(CAP / 2);
    expect(peakQueuedBytes).toBeLessThanOrEqual(CAP);
    const cut = lines.map((l) => JSON.parse(l) as { msg: string; pendingBytes?: number }).find((l) => l.msg === 'carrier cut off a slow reader');
    expect(cut?.pendingBytes).toBeGreaterThan(0);
    expect(reader.finished).toBe(false);
  }, 180_000);
});
