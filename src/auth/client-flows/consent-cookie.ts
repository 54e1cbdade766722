import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every consent binding cookie's name starts so; the rest names the flow, so two consents in one browser do not overwrite each other. */
const CONSENT_COOKIE_PREFIX = 'tg_consent_';

/**
 * The secret that binds a consent flow to the browser that started it: the browser holds `value`
 * in an HttpOnly cookie, the state store only its SHA-256 (`hash`), so reading the store does not
 * give anyone the cookie. Never log `value`.
 */
export interface ConsentBinding {
  /** The cookie's name: the prefix and a random flow id. */
  readonly name: string;
  readonly value: string;
  readonly hash: string;
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function newConsentBinding(): ConsentBinding {
  const value = randomBytes(32).toString('base64url');
  return { name: `${CONSENT_COOKIE_PREFIX}${randomBytes(9).toString('base64url')}`, value, hash: sha256(value) };
}

/** The value of cookie `name` in a Cookie request header, if sent. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether the Cookie header carries the binding whose hash the pending consent holds (compared in constant time). */
export function carriesBinding(header: string | undefined, binding: { readonly name: string; readonly hash: string }): boolean {
  const value = cookieValue(header, binding.name);
  if (value === undefined || value === '') return false;
  const sent = Buffer.from(sha256(value));
  const expected = Buffer.from(binding.hash);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/** Where the cookie is sent and how: path-scoped to the consent routes, Secure when served over https. */
export interface ConsentCookieScope {
  readonly path: string;
  readonly secure: boolean;
}

/** The Set-Cookie header of a binding: HttpOnly, SameSite=Lax (the provider's top-level redirect back carries it), lasting `maxAgeSeconds`. */
export function setConsentCookie(binding: Pick<ConsentBinding, 'name' | 'value'>, scope: ConsentCookieScope, maxAgeSeconds: number): string {
  return `${binding.name}=${binding.value}; Path=${scope.path}; Max-Age=${Math.max(1, Math.ceil(maxAgeSeconds))}; HttpOnly; SameSite=Lax${scope.secure ? '; Secure' : ''}`;
}

/** The Set-Cookie header that removes a binding cookie once its flow is over. */
export function clearConsentCookie(name: string, scope: ConsentCookieScope): string {
  return `${name}=; Path=${scope.path}; Max-Age=0; HttpOnly; SameSite=Lax${scope.secure ? '; Secure' : ''}`;
}
