import { ToolgraphError } from '../../errors/index.ts';
import { mutationChanges, mutationJsonSize } from './json-size.ts';
import type { Mutation, MutationInput } from './types.ts';

/**
 * The caps on one write batch: a Cypher statement, a GraphQL mutation operation, one batch of a JSON
 * Lines import. A batch is validated, logged and applied in one synchronous step, so its size is what
 * bounds the time a commit holds the event loop and the memory its log record takes.
 */
export interface WriteLimits {
  /** The most changes: nodes created or deleted, edges added or removed, properties set or removed. */
  readonly maxChanges: number;
  /** The most bytes of the batch's log record (its mutations' JSON, estimated as they are planned). */
  readonly maxBatchBytes: number;
}

/**
 * The settings' defaults (TOOLGRAPH_WRITE_MAX_CHANGES, TOOLGRAPH_WRITE_MAX_BATCH_BYTES): a batch at
 * the caps commits (plans, logs and applies, holding the event loop) in about 100 ms on a small idle
 * machine and a few hundred under heavy load, while an import batch of 5000 records of up to three
 * properties fits whole (the importer cuts larger ones by these caps).
 */
export const DEFAULT_WRITE_LIMITS: WriteLimits = Object.freeze({
  maxChanges: 20_000,
  maxBatchBytes: 16 * 1024 * 1024,
});

/** Which cap a refusal names, with the setting that raises it. */
const WRITE_SETTINGS = Object.freeze({
  maxChanges: 'TOOLGRAPH_WRITE_MAX_CHANGES',
  maxBatchBytes: 'TOOLGRAPH_WRITE_MAX_BATCH_BYTES',
} satisfies Record<keyof WriteLimits, string>);

const WHAT: Record<keyof WriteLimits, (max: number) => string> = {
  maxChanges: (max) => `The write makes more than ${max} changes (nodes, edges and properties), its change cap`,
  maxBatchBytes: (max) => `The write's log record is larger than ${max} bytes, its size cap`,
};

function writeTooLarge(limit: keyof WriteLimits, max: number): ToolgraphError {
  const setting = WRITE_SETTINGS[limit];
  return new ToolgraphError('TG_WRITE_TOO_LARGE',
    `${WHAT[limit](max)} (${setting}). Nothing was changed: split it into smaller writes or raise the cap.`,
    { details: { limit, max, setting } });
}

/**
 * Counts a batch's changes and log-record bytes as its mutations are produced, before they are kept,
 * so a batch over a cap is refused while it is still being built.
 */
export class WriteMeter {
  readonly limits: WriteLimits;
  changes = 0;
  bytes = 0;

  constructor(limits: WriteLimits) {
    this.limits = limits;
  }

  /** Charges one mutation about to join the batch; throws TG_WRITE_TOO_LARGE past a cap. */
  charge(mutation: MutationInput | Mutation): void {
    this.changes += mutationChanges(mutation);
    if (this.changes > this.limits.maxChanges) throw writeTooLarge('maxChanges', this.limits.maxChanges);
    // One more for the comma between mutations.
    this.bytes += mutationJsonSize(mutation) + 1;
    if (this.bytes > this.limits.maxBatchBytes) throw writeTooLarge('maxBatchBytes', this.limits.maxBatchBytes);
  }

  /**
   * Refuses a mutation whose changes alone would pass the change cap, before it is checked: its
   * properties are counted, not validated (a createNode of 20,000 properties is refused without
   * checking 20,000 names and values first). Charges nothing: `charge` does, once it is checked.
   */
  precheck(mutation: MutationInput): void {
    if (this.changes + mutationChanges(mutation) > this.limits.maxChanges) throw writeTooLarge('maxChanges', this.limits.maxChanges);
  }

  /** Whether `mutation` would still fit (the importer starts a new batch when it would not). */
  fits(mutation: MutationInput | Mutation): boolean {
    return this.changes + mutationChanges(mutation) <= this.limits.maxChanges
      && this.bytes + mutationJsonSize(mutation) + 1 <= this.limits.maxBatchBytes;
  }
}
