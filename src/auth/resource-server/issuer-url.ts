/**
 * The transport rule for every URL the auth layer fetches keys or metadata from (the discovery
 * document, the issuer, the JWKS): https, or http to a loopback host. Keys fetched over plain http
 * from elsewhere could be swapped by anyone on the path, and with them every token's signature, so
 * there is no switch to allow that: put TLS in front of the IdP, or reach it through a loopback
 * tunnel (`ssh -L`).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  const parts = host.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

/** Why `raw` may not be fetched from, or undefined when it may. */
export function issuerUrlProblem(raw: string): string | undefined {
  if (!URL.canParse(raw)) return 'is not an absolute URL';
  const url = new URL(raw);
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  if (url.protocol === 'http:') return 'uses http to a host that is not loopback; an IdP must be reached over https (http is accepted only for 127.0.0.0/8, [::1] and localhost)';
  return `uses ${url.protocol.replace(/:$/, '')}; expected https`;
}
