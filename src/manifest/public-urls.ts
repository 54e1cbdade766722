import { ToolgraphError } from '../errors/index.ts';

/**
 * A public base URL in the form URIs are built from: http(s), no query or fragment, no trailing
 * slash (`https://host/prefix`). Characters a URI template reserves (`{`, `}`) end up percent-encoded.
 */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolgraphError('TG_CONFIG_INVALID', `Public base URL: expected an absolute http(s) URL, got ${JSON.stringify(raw)}.`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new ToolgraphError('TG_CONFIG_INVALID', `Public base URL: expected an http(s) URL without query or fragment, got ${JSON.stringify(raw)}.`);
  }
  return url.href.replace(/\/+$/, '');
}

/** `{base}/schemas/{schema_sha256}`. */
export function manifestUri(base: string, schemaSha256: string): string {
  return `${base}/schemas/${schemaSha256}`;
}

/** `{base}/schemas/{schema_sha256}/fragments/{index}`: an RFC 6570 level-1 template, `{index}` 0-based. */
export function fragmentUriTemplate(base: string, schemaSha256: string): string {
  return `${base}/schemas/${schemaSha256}/fragments/{index}`;
}
