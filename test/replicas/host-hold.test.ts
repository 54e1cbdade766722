import { describe, expect, it } from 'vitest';
import { startHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';

describe('a host held by something that is not a service (the IdP)', () => {
  it('answers /healthz 503 naming what it waits for until released; services already answer, unknown paths are 404', async () => {
    const host = await startHost({ host: '127.0.0.1', port: 0, logger: silentLogger(), services: [] });
    try {
      let reason = 'discovery failed: ECONNREFUSED';
      const release = host.hold('idp', () => reason);
      host.mount([{ name: 'echo', prefixes: ['/echo'], entryPath: '/echo', handle: (_req, res) => void res.writeHead(204).end() }]);
      const health = await fetch(`${host.origin}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'starting', services: ['echo'], starting: ['idp'], waiting: { idp: 'discovery failed: ECONNREFUSED' } });
      reason = 'discovery failed: HTTP 500';
      expect(((await (await fetch(`${host.origin}/healthz`)).json()) as { waiting: { idp: string } }).waiting.idp).toBe('discovery failed: HTTP 500');
      expect((await fetch(`${host.origin}/echo`)).status).toBe(204);
      expect((await fetch(`${host.origin}/nowhere`)).status).toBe(404);
      release();
      expect(await (await fetch(`${host.origin}/healthz`)).json()).toEqual({ status: 'ok', services: ['echo'] });
    } finally {
      await host.close({ graceMs: 0 });
    }
  });
});
