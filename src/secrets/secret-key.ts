import { ToolgraphError } from '../errors/index.ts';

// Control characters have no place in a store path and would confuse logs and proxies.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern exists to find control characters and refuse them.
const CONTROL = /[\u0000-\u001f\u007f]/;

function problemOf(segments: readonly string[]): string | undefined {
  for (const segment of segments) {
    if (segment === '') return 'an empty segment';
    if (segment === '.' || segment === '..') return `a "${segment}" segment`;
    if (CONTROL.test(segment)) return 'a control character';
  }
  return undefined;
}

/**
 * Splits a caller's key into path segments. Keys are `/`-separated; an empty, `.` or `..` segment
 * would let a key step outside the path prefix, so such keys are refused.
 */
export function secretKeySegments(key: string): string[] {
  const segments = key.split('/');
  const problem = key === '' ? 'an empty key' : problemOf(segments);
  if (problem) {
    throw new ToolgraphError('TG_BAD_REQUEST', `secret key ${JSON.stringify(key)}: expected path segments separated by "/" with no empty, "." or ".." segment and no control character; got ${problem}`, { details: { key } });
  }
  return segments;
}

/**
 * Splits a configured path (mount or prefix); leading and trailing slashes are forgiven since
 * operators often write `/team/app/`. An empty result means "no prefix".
 */
export function configuredPathSegments(value: string | undefined, setting: string): string[] {
  const trimmed = (value ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return [];
  const segments = trimmed.split('/');
  const problem = problemOf(segments);
  if (problem) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `${setting}: expected path segments separated by "/" with no empty, "." or ".." segment; got ${problem} in ${JSON.stringify(value)}`, { details: { setting } });
  }
  return segments;
}

/** `{mount}/data/{prefix}/{key}` with every segment percent-encoded (the spec's secret path). */
export function kvDataPath(mount: readonly string[], prefix: readonly string[], key: readonly string[]): string {
  return [...mount, 'data', ...prefix, ...key].map(encodeURIComponent).join('/');
}
