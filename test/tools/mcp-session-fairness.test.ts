import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateStore, type StateStore } from '../../src/state/index.ts';
import { StoredMcpSessions } from '../../src/tools/stored-mcp-sessions.ts';
import { failure } from '../support/toolgraph-failure.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { openRawSession, rawToolsListStatus, type OpenedSession } from '../support/raw-mcp-session.ts';
import { startServe } from './support.ts';

/**
 * Issue 28: a caller's flood of MCP initializes refused other callers' sessions, and the 429 said
 * nothing of when to retry. Each initialize raced its own read-modify-swap of the session table
 * in the state store, so on the file store (the default) one caller's 300 at once lost every other
 * caller's rounds until they ran out (429 "faster than they can be recorded"); and with a per-subject
 * cap above the process cap one caller took every place.
 */

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp?.close());

const statuses = (opened: readonly OpenedSession[]) => opened.map((o) => o.status);

describe('MCP sessions are fair per subject under a flood (issue 28)', () => {
  it('one caller\'s 300 initializes at once on the file state store refuse none of another caller\'s', async () => {
    const server = await startServe({ env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_PERSISTENCE: 'file' }, only: ['tools'] });
    try {
      const hog = await idp.mintToken({ sub: 'hog', scope: 'kg:read', audience: server.origin });
      const victim = await idp.mintToken({ sub: 'victim', scope: 'kg:read', audience: server.origin });
      const [flood, victims] = await Promise.all([
        Promise.all(Array.from({ length: 300 }, () => openRawSession(server.origin, hog))),
        Promise.all(Array.from({ length: 5 }, () => openRawSession(server.origin, victim))),
      ]);
      expect(statuses(victims), victims.map((v) => v.body).join('\n')).toEqual(Array(5).fill(200));
      expect(statuses(flood).filter((s) => s !== 200)).toEqual([]);
      // The victim's sessions all work; the hog kept only its own per-caller default of 16.
      expect(await Promise.all(victims.map((v) => rawToolsListStatus(server.origin, victim, v.id!)))).toEqual(Array(5).fill(200));
      const hogs = await Promise.all(flood.map((o) => rawToolsListStatus(server.origin, hog, o.id!)));
      expect(hogs.filter((s) => s === 200)).toHaveLength(16);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a per-subject setting above the process cap still leaves room: one caller keeps at most half of it', async () => {
    const server = await startServe({ env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_MCP_MAX_SESSIONS: '10' }, only: ['tools'] });
    try {
      const hog = await idp.mintToken({ sub: 'hog', scope: 'kg:read', audience: server.origin });
      const flood = await Promise.all(Array.from({ length: 30 }, () => openRawSession(server.origin, hog)));
      expect(statuses(flood).filter((s) => s !== 200)).toEqual([]);
      const hogs = await Promise.all(flood.map((o) => rawToolsListStatus(server.origin, hog, o.id!)));
      expect(hogs.filter((s) => s === 200)).toHaveLength(5);
      // The other half is there for the other callers (the per-subject default, 16, would have let the hog take all 10).
      for (const sub of ['alice', 'bob']) {
        const token = await idp.mintToken({ sub, scope: 'kg:read', audience: server.origin });
        const opened = await Promise.all(Array.from({ length: 3 }, () => openRawSession(server.origin, token)));
        expect(statuses(opened), sub).toEqual([200, 200, 200]);
      }
    } finally {
      await server.close();
    }
  });
});

describe('every 429 the tool server sends says when to retry (Retry-After)', () => {
  it('a full server refusing an initialize: 429 TG_RATE_LIMITED with Retry-After and retryAfterSecs, naming the setting', async () => {
    const server = await startServe({ env: { AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, TOOLGRAPH_MCP_MAX_SESSIONS: '2' }, only: ['tools'] });
    try {
      for (const sub of ['alice', 'bob']) expect((await openRawSession(server.origin, await idp.mintToken({ sub, scope: 'kg:read', audience: server.origin }))).status).toBe(200);
      const refused = await openRawSession(server.origin, await idp.mintToken({ sub: 'carol', scope: 'kg:read', audience: server.origin }));
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('60');
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'TG_RATE_LIMITED', details: { limit: 'mcpMaxSessions', max: 2, setting: 'TOOLGRAPH_MCP_MAX_SESSIONS', retryAfterSecs: 60 } } });
    } finally {
      await server.close();
    }
  });

  it('the session table losing every round to other replicas: TG_RATE_LIMITED with retryAfterSecs (the header sendError writes)', async () => {
    // A store where every compare-and-set loses, as under a replica that always writes first.
    const store = new MemoryStateStore();
    await store.add('mcp-sessions', 'table', { rows: [] }, 60_000);
    const losing: StateStore = {
      kind: 'memory',
      get: (space, key) => store.get(space, key),
      set: (space, key, value, ttlMs) => store.set(space, key, value, ttlMs),
      add: (space, key, value, ttlMs) => store.add(space, key, value, ttlMs),
      swap: async () => false,
      take: (space, key) => store.take(space, key),
      delete: (space, key) => store.delete(space, key),
      count: (space) => store.count(space),
      sweep: () => store.sweep(),
      close: () => store.close(),
    };
    const sessions = new StoredMcpSessions(losing, { maxSessions: 10, maxSessionsPerSubject: 4 }, { idleMs: 60_000 });
    const refused = await failure(sessions.open('alice'));
    expect(refused).toMatchObject({ code: 'TG_RATE_LIMITED', status: 429, details: { retryAfterSecs: 1 } });
    await store.close();
  });

  it('the sign-in proxy\'s registration rate limit (the MCP SDK\'s): 429 with Retry-After', async () => {
    const server = await startServe({ env: { AUTH_TYPE: 'oidc-proxy', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: 'toolgraph-proxy', OIDC_CLIENT_SECRET: `proxy-secret-${crypto.randomUUID()}` } });
    try {
      const register = () => fetch(`${server.origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'flood', redirect_uris: ['http://127.0.0.1:9/cb'], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
      });
      let last: Response | undefined;
      // The SDK allows 20 registrations an hour from one address.
      for (let i = 0; i < 21; i++) {
        last = await register();
        if (last.status === 429) break;
        await last.text();
      }
      expect(last!.status).toBe(429);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
