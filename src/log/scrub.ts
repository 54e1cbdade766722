/**
 * Defence in depth under pino's path redaction: any string that reaches a log line is scrubbed of
 * bearer credentials and JWT-shaped values, wherever in the object it sits.
 */
const BEARER = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
export const REDACTED = '[REDACTED]';

export function scrubString(value: string): string {
  if (!value.includes('ey') && !/bearer/i.test(value)) return value;
  return value.replace(BEARER, `$1 ${REDACTED}`).replace(JWT, REDACTED);
}

export function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  if (value instanceof Error) return scrubError(value, depth);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrubValue(item, depth + 1);
  return out;
}

/** Errors are serialised here (pino's own serializer would run after the scrub and see the raw text). */
function scrubError(error: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: scrubString(error.message) };
  if (error.stack) out['stack'] = scrubString(error.stack);
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) out['code'] = code;
  if (error.cause !== undefined) out['cause'] = scrubValue(error.cause, depth + 1);
  return out;
}
