import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runProgram } from '../../src/cli/program.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';

async function run(...args: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const io: CliIo = { out: (l) => lines.push(l), err: (l) => errors.push(l) };
  const code = await runProgram(args, io);
  return { code, out: lines.join('\n'), err: errors.join('\n') };
}

/** Runs with env PORT set (and TOOLGRAPH_URL unset), restoring both after. */
async function withEnv<T>(env: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await work();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('toolgraph schema finds the local server on the configured port', () => {
  let server: RunningToolgraph;
  let port: string;
  beforeAll(async () => {
    const config = resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory' } });
    server = await startToolgraph({ config, logger: silentLogger(), only: ['catalogue'] });
    port = new URL(server.origin).port;
  });
  afterAll(() => server.close());

  it('schema search --port', async () => {
    const result = await withEnv({ TOOLGRAPH_URL: undefined, PORT: undefined }, () => run('schema', 'search', 'Organization', '--json', '--port', port));
    expect(result.code, result.err).toBe(0);
    const hit = (JSON.parse(result.out) as { results: { manifest: { operation: string; manifest_uri: string } }[] }).results[0]!;
    expect(hit.manifest.operation).toBe('Organization');
    expect(hit.manifest.manifest_uri.startsWith(`${server.origin}/schemas/`)).toBe(true);
  });

  it('schema get with PORT from the environment', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'tg-cache-'));
    const result = await withEnv({ TOOLGRAPH_URL: undefined, PORT: port }, () => run('schema', 'get', 'graph-person', '--cache-dir', cacheDir));
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ operation: 'Person' });
  });

  it('a wildcard HOST is reached on loopback; PORT 0 names what to give instead', async () => {
    const wildcard = await withEnv({ TOOLGRAPH_URL: undefined, PORT: port, HOST: '0.0.0.0' }, () => run('schema', 'search', 'Person', '--limit', '1'));
    expect(wildcard.code, wildcard.err).toBe(0);
    expect(wildcard.out).toContain('graph-person');
    const zero = await withEnv({ TOOLGRAPH_URL: undefined, PORT: '0' }, () => run('schema', 'search', 'Person'));
    expect(zero).toMatchObject({ code: 78, err: 'toolgraph: TG_CONFIG_INVALID: PORT is 0 (the server picks a free port at each start), so the local catalogue cannot be found: give --url or TOOLGRAPH_URL.' });
  });
});
