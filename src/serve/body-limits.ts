import type { ResolvedValues } from '../config/index.ts';
import type { BodyLimits } from '../http/index.ts';

/** What request bodies being received may take, process-wide, from the TOOLGRAPH_BODY_* settings. */
export function bodyLimitsOf(values: Pick<ResolvedValues, 'bodyMemoryBytes' | 'bodyTimeoutMs'>): BodyLimits {
  return Object.freeze({ memoryBytes: values.bodyMemoryBytes, timeoutMs: values.bodyTimeoutMs });
}
