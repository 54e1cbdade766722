import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { startServe, textOf } from './support.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const SECRET = `stdio-secret-${crypto.randomUUID()}`;

/** The child's environment: a fresh HOME (no config.json), a seeded in-memory secrets backend. */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'tg-stdio-'));
  const seed = join(home, 'secrets.json');
  writeFileSync(seed, JSON.stringify({ 'team/db': { password: SECRET } }));
  return { PATH: process.env['PATH'] ?? '', HOME: home, TOOLGRAPH_SECRETS_FILE: seed, ...extra };
}

let graph: RunningToolgraph;
beforeAll(async () => {
  // A graph service for the stdio server's graph agent to call, as `toolgraph serve` would be.
  graph = await startServe({ only: ['graph'] });
});
afterAll(() => graph?.close());

describe('toolgraph tools serve --transport stdio, with the SDK\'s stdio client', () => {
  it('lists and calls tools over stdin/stdout; logs go to stderr; the caller is the local operator', async () => {
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['src/cli/toolgraph.ts', 'tools', 'serve', '--transport', 'stdio', '--agent', `graph.url=${graph.origin}`],
      cwd: ROOT,
      env: childEnv(),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['graph', 'schemas', 'secrets']);
      const rows = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (o:Organization) RETURN count(*) AS n' } });
      expect(rows.structuredContent).toEqual({ columns: ['n'], rows: [[8]], version: 3 });
      const secret = await client.callTool({ name: 'secrets', arguments: { action: 'get', key: 'team/db', field: 'password' } });
      expect(secret.structuredContent).toEqual({ key: 'team/db', field: 'password', value: SECRET });
      const invalid = await client.callTool({ name: 'schemas', arguments: { action: 'get' } });
      expect(textOf(invalid)).toBe('Invalid arguments for schemas.get (1 violation): /name: expected required property "name", got no such property.');
    } finally {
      await client.close();
    }
    const logs = stderr.join('');
    expect(logs).toContain('"msg":"MCP tool server on stdio"');
    expect(logs).toContain('"msg":"tool call"');
    expect(logs).not.toContain(SECRET);
  });

  it('refuses an auth type: a stdio server has no request to carry a token', async () => {
    const child = spawn(process.execPath, ['src/cli/toolgraph.ts', 'tools', 'serve', '--transport', 'stdio', '--auth-type', 'jwt', '--oidc-config-url', 'https://idp.example.test/.well-known/openid-configuration'], { cwd: ROOT, env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(78);
    expect(stderr).toContain('toolgraph: TG_CONFIG_INVALID: AUTH_TYPE jwt with MCP_TRANSPORT stdio: a stdio server has no HTTP request to carry a bearer token');
  });
});

describe('toolgraph tools serve --transport streamable-http', () => {
  it('runs only the tool server, printing where it listens, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['src/cli/toolgraph.ts', 'tools', 'serve', '--transport', 'streamable-http', '--port', '0', '--log-level', 'silent', '--agent', `graph.url=${graph.origin}`], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const origin = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        const match = /toolgraph listening on (http:\/\/\S+)/.exec(stdout);
        if (match && stdout.includes('health')) resolve(match[1]!);
      });
      child.on('exit', () => reject(new Error(`exited early: ${stdout}`)));
    });
    expect(stdout).toContain(`  tools      ${origin}/mcp`);
    expect(stdout).not.toContain('/dispatch');
    const call = await fetch(`${origin}/mcp/tools/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'RETURN 1 AS one' } }) });
    expect(((await call.json()) as { structuredContent: unknown }).structuredContent).toEqual({ columns: ['one'], rows: [[1]], version: 3 });
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
  });
});
