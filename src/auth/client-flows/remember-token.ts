import { rememberSecret } from '../../log/index.ts';

const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Has the log scrubber cut a token out of any line. JWTs are cut by their shape already, so only
 * opaque tokens (refresh tokens, opaque access tokens) take a place in the bounded known-secret set:
 * thousands of users' delegated JWTs would otherwise push the service's own secrets out of it.
 */
export function rememberOpaqueToken(value: string | undefined): void {
  if (value !== undefined && !JWT_SHAPE.test(value)) rememberSecret(value);
}
