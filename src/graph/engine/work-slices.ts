/**
 * Work cut into slices of the event loop: a generator yields (nothing) at points where it may pause,
 * and the driver pauses there once `sliceMs` of the slice are used up. Big commits (planning, the log
 * record's encoding) run this way, so one batch at the write caps does not hold the event loop for
 * the whole of its work.
 */
export type SlicedWork<T> = Generator<void, T, undefined>;

/** Milliseconds of work between two pauses of a sliced commit. */
export const COMMIT_SLICE_MS = 5;

/** Runs `work` to the end without pausing (replays, synchronous callers). */
export function runWhole<T>(work: SlicedWork<T>): T {
  for (;;) {
    const next = work.next();
    if (next.done) return next.value;
  }
}

/** Lets the event loop serve other work (I/O included) before the next slice. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs `work` to the end, pausing the event loop (`nextTurn`) whenever a slice of `sliceMs` is used
 * up at one of its yield points. `onPause` counts the pauses (tests).
 */
export async function runSliced<T>(work: SlicedWork<T>, sliceMs = COMMIT_SLICE_MS): Promise<T> {
  let started = performance.now();
  for (;;) {
    const next = work.next();
    if (next.done) return next.value;
    if (performance.now() - started >= sliceMs) {
      await nextTurn();
      started = performance.now();
    }
  }
}
