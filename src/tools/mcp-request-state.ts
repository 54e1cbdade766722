import { randomBytes } from 'node:crypto';
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import type { StateStore } from '../state/index.ts';

/** Where the HMAC key of `requestState` lives: in the store every replica shares, so a retry may land on any of them. */
const KEY_SPACE = 'mcp-keys';
const KEY_NAME = 'request-state';
/** A key lives this long in the store; the next one is made when it is gone (a state sealed under the old one is refused and the call asked again). */
const KEY_TTL_MS = 30 * 24 * 3600_000;
/** How long a process keeps using the key it read before reading the store again. */
const KEY_REREAD_MS = 5 * 60_000;
/** How long a sealed state stays good: a user's consent in a browser, with room. */
const STATE_TTL_SECONDS = 15 * 60;

/** Seals and opens the `requestState` of multi-round-trip answers (MCP 2026-07-28). */
export interface RequestStateSealer {
  seal(payload: unknown, ctx: ServerContext): Promise<string>;
  /** The sealed payload; throws when the state was not sealed here, expired, or was sealed for another caller. */
  open(state: string, ctx: ServerContext): Promise<unknown>;
}

/** The caller a state is bound to: the verified token's client and subject (nothing for the local operator). */
function bindingOf(ctx: ServerContext): string {
  const auth = ctx.http?.authInfo;
  const context = auth?.extra?.['requestContext'] as { principal?: { subject?: string; claims?: Record<string, unknown> } } | undefined;
  const principal = context?.principal;
  return `${ctx.mcpReq.method}\u0000${String(principal?.claims?.['iss'] ?? '')}\u0000${principal?.subject ?? 'local'}`;
}

/**
 * `requestState` sealed with the SDK's HMAC codec (integrity, expiry, bound to the caller and the
 * method), its key kept in the state store: the first replica to need one adds it, the others read
 * it. A process re-reads the key every few minutes and, when a state does not open, once more straight away, so
 * a key that expired and was replaced elsewhere is picked up.
 */
export function storedRequestStateSealer(store: StateStore): RequestStateSealer {
  let current: { codec: RequestStateCodec; key: string; readAt: number } | undefined;

  async function codec(refresh: boolean): Promise<RequestStateCodec> {
    if (current !== undefined && !refresh && Date.now() - current.readAt < KEY_REREAD_MS) return current.codec;
    let key = await store.get<string>(KEY_SPACE, KEY_NAME);
    if (key === undefined) {
      const made = randomBytes(32).toString('base64url');
      key = (await store.add(KEY_SPACE, KEY_NAME, made, KEY_TTL_MS)) ? made : await store.get<string>(KEY_SPACE, KEY_NAME);
      if (key === undefined) throw new Error('The MCP request-state key vanished from the state store while it was being made.');
    }
    if (current?.key !== key) current = { codec: createRequestStateCodec({ key, ttlSeconds: STATE_TTL_SECONDS, bind: bindingOf }), key, readAt: Date.now() };
    else current.readAt = Date.now();
    return current.codec;
  }

  return {
    async seal(payload, ctx) {
      return (await codec(false)).mint(payload, ctx);
    },
    async open(state, ctx) {
      try {
        return await (await codec(false)).verify(state, ctx);
      } catch {
        const before = current?.key;
        const fresh = await codec(true);
        if (current?.key === before) throw new Error('The request state did not open under the current key.');
        return fresh.verify(state, ctx);
      }
    },
  };
}
