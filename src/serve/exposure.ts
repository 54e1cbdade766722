import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { ResolvedValues } from '../config/index.ts';
import { ToolgraphError } from '../errors/index.ts';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

const UNSPECIFIED = new BlockList();
UNSPECIFIED.addAddress('0.0.0.0', 'ipv4');
UNSPECIFIED.addAddress('::', 'ipv6');
UNSPECIFIED.addAddress('::ffff:0.0.0.0', 'ipv6');

function family(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

function isLoopbackAddress(address: string): boolean {
  const kind = family(address);
  return kind !== undefined && LOOPBACK.check(address, kind);
}

/** 0.0.0.0 or :: ("every interface"): a bind address, never one a client can be sent to. */
export function isUnspecifiedAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const kind = family(bare);
  return kind !== undefined && UNSPECIFIED.check(bare, kind);
}

/** The addresses a HOST value binds: itself when it is an IP literal, else every address it resolves to. */
async function addressesOf(host: string, resolve: typeof lookup): Promise<string[]> {
  if (family(host) !== undefined) return [host];
  try {
    return (await resolve(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `HOST ${JSON.stringify(host)} does not resolve to an address to bind (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, { cause: error });
  }
}

/**
 * With AUTH_TYPE=none every caller holds every scope, writes included, so the services may only be
 * reachable from this machine: a HOST that is (or resolves to) anything but loopback is refused.
 */
export async function refuseUnsafeExposure(values: Pick<ResolvedValues, 'host' | 'authType'>, resolve: typeof lookup = lookup): Promise<void> {
  if (values.authType !== 'none') return;
  const addresses = await addressesOf(values.host, resolve);
  const exposed = addresses.filter((address) => !isLoopbackAddress(address));
  if (exposed.length === 0) return;
  const shown = addresses.length === 1 && addresses[0] === values.host ? values.host : `${values.host} (${addresses.join(', ')})`;
  throw new ToolgraphError('TG_CONFIG_INVALID',
    `HOST ${shown} is not a loopback address, and AUTH_TYPE is none: every caller on the network would hold every scope, writes included. Bind 127.0.0.1 (the default) or ::1; AUTH_TYPE=none never binds anything else.`,
    { details: { setting: 'host', host: values.host, authType: values.authType } });
}

/**
 * The base URL manifests publish: TOOLGRAPH_PUBLIC_URL, else the bound origin. An unspecified
 * address (0.0.0.0, ::) is never published: clients cannot be sent there.
 */
export function publicBaseUrl(origin: string, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) {
    if (isUnspecifiedAddress(new URL(publicUrl).hostname)) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `TOOLGRAPH_PUBLIC_URL ${publicUrl} names the unspecified address, which no client can reach; give the host name or address clients use.`, {
        details: { setting: 'publicUrl' },
      });
    }
    return publicUrl;
  }
  if (isUnspecifiedAddress(new URL(origin).hostname)) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `HOST binds every interface (${origin}), which is no address to publish in manifest URIs; set TOOLGRAPH_PUBLIC_URL to the URL clients use.`, {
      details: { setting: 'publicUrl' },
    });
  }
  return origin;
}

/**
 * `host[:port]` values requests may carry in Host and Origin (the host's DNS rebinding check): the public URL's
 * host, the bound address, and on loopback also `localhost` and the other loopback literal.
 */
export function allowedHostsOf(origin: string, publicBase: string): string[] {
  const bound = new URL(origin);
  const hosts = new Set([new URL(publicBase).host, bound.host]);
  const address = bound.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLoopbackAddress(address) || isUnspecifiedAddress(address)) {
    for (const name of ['localhost', '127.0.0.1', '[::1]']) hosts.add(`${name}:${bound.port}`);
  }
  return [...hosts].map((h) => h.toLowerCase());
}
