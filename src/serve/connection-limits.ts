import type { ResolvedValues } from '../config/index.ts';
import type { ConnectionLimits } from '../http/index.ts';

/** The main port's connection cap and deadlines, from the settings. */
export function connectionLimitsOf(values: Pick<ResolvedValues, 'maxConnections' | 'requestHeadTimeoutMs' | 'keepAliveTimeoutMs'>): ConnectionLimits {
  return Object.freeze({ maxConnections: values.maxConnections, requestHeadTimeoutMs: values.requestHeadTimeoutMs, keepAliveTimeoutMs: values.keepAliveTimeoutMs });
}
