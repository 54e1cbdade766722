import type { ExecutionMeter } from './exec-state.ts';

/**
 * Execution that may stop at safe points: the executor's steps are generators that `yield` between
 * slices of a large level when the meter says the time slice is spent (`yieldDue`), and otherwise
 * run straight through. A small request never yields, so it still runs and returns synchronously.
 * Each generator frame between the executor and the rows costs on every request, so a step that
 * only prepares and then hands over to one other step is a plain function returning that step's
 * work (see labelList, shapeNodes), not a generator of its own.
 */
export type Work<T> = Generator<undefined, T, undefined>;

/** Work that is done already: its value, with nothing to run. */
// biome-ignore lint/correctness/useYield: work that is done already has no point where it could pause.
export function* doneWork<T>(value: T): Work<T> {
  return value;
}

/** Runs work to its end without pausing: for callers that must answer synchronously. */
export function finish<T>(work: Work<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs work, pausing (the meter lets the event loop serve other requests) wherever it yields: the
 * value itself when it never yields, else a promise of it.
 */
export function drive<T>(work: Work<T>, meter: ExecutionMeter): T | Promise<T> {
  const step = work.next();
  return step.done ? step.value : resume(work, meter);
}

async function resume<T>(work: Work<T>, meter: ExecutionMeter): Promise<T> {
  for (;;) {
    await meter.pause();
    const step = work.next();
    if (step.done) return step.value;
  }
}
