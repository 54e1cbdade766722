/**
 * Secret values this process knows (secret settings, store tokens it obtained), so a log line never
 * carries one even inside free text such as an error message. Process-wide on purpose: a secret is
 * secret for every logger. Bounded: the oldest are forgotten first (cached store tokens expire).
 */
const MAX_KNOWN = 256;
/** Shorter values would cut ordinary words out of log lines; no real credential is this short. */
const MIN_SECRET_LENGTH = 8;

const known = new Set<string>();
let pattern: RegExp | null | undefined = null;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Remembers a secret value (and, for URL-borne ones, its percent-decoded form) so logs redact it. */
export function rememberSecret(value: string | undefined): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH || known.has(value)) return;
  known.add(value);
  if (known.size > MAX_KNOWN) known.delete(known.values().next().value!);
  pattern = undefined;
}

/** Forgets every remembered value (tests). */
export function forgetSecrets(): void {
  known.clear();
  pattern = null;
}

/** One regular expression matching any known secret, longest first; undefined when none is known. */
export function knownSecretsPattern(): RegExp | undefined {
  if (pattern === undefined) {
    pattern = known.size === 0 ? null : new RegExp([...known].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'g');
  }
  return pattern ?? undefined;
}
