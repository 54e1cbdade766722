/** The content codings a compressed page is kept in, best first. */
export type ContentCoding = 'br' | 'gzip' | 'identity';

/** The qualities Accept-Encoding gives each coding (RFC 9110 §12.5.3), lower-cased; `x-gzip` is gzip. */
function qualities(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!rawName) continue;
    const name = rawName === 'x-gzip' ? 'gzip' : rawName;
    let weight = 1;
    for (const param of params) {
      const m = /^q=([01](?:\.\d{0,3})?)$/.exec(param);
      if (m) weight = Number(m[1]);
    }
    q.set(name, Math.max(weight, q.get(name) ?? 0));
  }
  return q;
}

/**
 * The coding to send for an Accept-Encoding header: br when acceptable, else gzip, else identity
 * (also when the client refuses identity: RFC 9110 lets the server send it rather than a 406). The
 * client's qualities rank first; br wins a tie, being the smaller.
 */
export function preferredCoding(header: string | undefined): ContentCoding {
  if (header === undefined || header.trim() === '') return 'identity';
  const q = qualities(header);
  const star = q.get('*') ?? 0;
  const br = q.get('br') ?? star;
  const gzip = q.get('gzip') ?? star;
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return 'identity';
}
