import { freePort } from './free-port.ts';

/** A loopback port nothing listens on (bound, then released), so a connection is refused. */
export function closedPort(): Promise<number> {
  return freePort();
}
