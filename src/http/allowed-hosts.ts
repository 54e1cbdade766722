import type { IncomingMessage } from 'node:http';
import { ToolgraphError } from '../errors/index.ts';

/**
 * DNS rebinding protection for every service of the host: a web page whose name an attacker rebound
 * to 127.0.0.1 reaches a loopback server with its own name in Host (and its own origin in Origin),
 * so a request is served only when both name an address of this server.
 */
export class AllowedHosts {
  readonly #hosts: ReadonlySet<string>;

  /** `host[:port]` values, compared without case. */
  constructor(hosts: readonly string[]) {
    this.#hosts = new Set(hosts.map((h) => h.toLowerCase()));
  }

  /** The refusal for a request addressed elsewhere, or undefined when Host and Origin are this server's. */
  refusal(req: IncomingMessage): ToolgraphError | undefined {
    const host = req.headers.host?.toLowerCase();
    const origin = req.headers.origin;
    if (host === undefined || !this.#hosts.has(host)) return this.#refuse(`Host ${JSON.stringify((host ?? '').slice(0, 100))}`);
    // A page elsewhere calling this server directly carries its own Origin (or `null` from a sandbox).
    if (origin !== undefined) {
      const originHost = URL.canParse(origin) ? new URL(origin).host.toLowerCase() : undefined;
      if (originHost === undefined || !this.#hosts.has(originHost)) return this.#refuse(`Origin ${JSON.stringify(origin.slice(0, 100))}`);
    }
    return undefined;
  }

  #refuse(named: string): ToolgraphError {
    return new ToolgraphError('TG_FORBIDDEN',
      `${named} is not an address of this server; it answers only requests addressed to ${[...this.#hosts].join(', ')} (DNS rebinding protection; set TOOLGRAPH_PUBLIC_URL to the address clients use).`,
      { details: { allowed: [...this.#hosts] } });
  }
}
