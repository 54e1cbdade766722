import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runProgram } from '../../src/cli/program.ts';
import { closedPort } from '../support/closed-port.ts';

/** Runs with the given env vars set (undefined: unset), restoring them after. */
async function run(args: string[], env: Record<string, string | undefined> = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const io: CliIo = { out: (l) => lines.push(l), err: (l) => errors.push(l) };
  const all = { TOOLGRAPH_URL: undefined, PORT: undefined, HOST: undefined, ...env };
  const saved = Object.fromEntries(Object.keys(all).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(all)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    const code = await runProgram(args, io);
    return { code, out: lines.join('\n'), errors };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('a client command that reaches no server says how to start one or point elsewhere', () => {
  it('schema search on the local server that is not running', async () => {
    const port = await closedPort();
    const result = await run(['schema', 'search', 'person', '--port', String(port)]);
    expect(result.code).toBe(1);
    expect(result.errors).toEqual([
      `toolgraph: TG_FETCH_FAILED: GET http://127.0.0.1:${port}/schemas/search?q=person&limit=10 failed after 4 attempts: ECONNREFUSED.`,
      `toolgraph: no server answers at http://127.0.0.1:${port}, where \`toolgraph serve\` listens with these settings: start it (\`npx toolgraph serve\` or \`npm start\`) in another terminal, or point at a running catalogue with --url URL or TOOLGRAPH_URL (--host and --port say where the local one listens)`,
    ]);
  });

  it('schema get at a URL from --url or TOOLGRAPH_URL names where that URL came from', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const flag = await run(['schema', 'get', 'graph-person', '--url', url, '--retries', '0']);
    expect(flag.code).toBe(1);
    expect(flag.errors[1]).toBe(`toolgraph: no server answers at ${url} (from --url): check the URL, or start a local server (\`npx toolgraph serve\`) and leave --url out`);
    const env = await run(['schema', 'search', 'person'], { TOOLGRAPH_URL: url });
    expect(env.errors[1]).toBe(`toolgraph: no server answers at ${url} (from env TOOLGRAPH_URL): check the URL, or start a local server (\`npx toolgraph serve\`) and leave TOOLGRAPH_URL out`);
  });

  describe('a server that answers, with an error', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"TG_NOT_READY","message":"starting"}}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('gets no "no server answers" hint', async () => {
      const result = await run(['schema', 'get', 'graph-person', '--port', String(port), '--retries', '0']);
      expect(result.code).toBe(1);
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toContain('TG_FETCH_FAILED');
    });
  });

  it('auth login with an identity provider that cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/.well-known/openid-configuration`;
    const result = await run(['auth', 'login', 'jira', '--oidc-config-url', url, '--oidc-client-id', 'toolgraph-cli']);
    expect(result.code).toBe(1);
    expect(result.errors).toEqual([
      `toolgraph: TG_OIDC_DISCOVERY_FAILED: OIDC discovery at OIDC_CONFIG_URL ${url} failed: the IdP cannot be reached (ECONNREFUSED).`,
      'toolgraph: auth login signs in at the identity provider: check OIDC_CONFIG_URL (--oidc-config-url, or config key oidc_config_url) and that the IdP is up, or give its --authorization-endpoint and --token-endpoint',
    ]);
  });
});
