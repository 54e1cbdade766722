import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { startServe } from './support.ts';

const run = promisify(execFile);

/** The conformance CLI of `@modelcontextprotocol/conformance`, run with this test's Node. */
const CLI = join(dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/package.json'))), 'dist', 'index.js');

/**
 * The server scenarios of the official suite that apply to a server with toolgraph's tools. The
 * others drive tools, prompts or resources that only the suite's own reference server has
 * (`test_simple_text`, `test_reconnection`, `json_schema_2020_12_tool`, …), or capabilities this
 * server does not declare (logging, completions, prompts, resources, sampling); the suite has no
 * server scenario for revision 2026-07-28 yet (mcp-modern.test.ts drives that one with the SDK 2.x client).
 */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'server-sse-multiple-streams'] as const;

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly description: string;
}

let running: RunningToolgraph;
beforeAll(async () => {
  running = await startServe();
});
afterAll(async () => {
  await running?.close();
});

async function scenario(name: string): Promise<readonly Check[]> {
  const out = mkdtempSync(join(tmpdir(), 'tg-conformance-'));
  await run(process.execPath, [CLI, 'server', '--url', `${running.origin}/mcp`, '--scenario', name, '--output-dir', out], { timeout: 60_000 });
  const [folder] = readdirSync(out);
  if (folder === undefined) throw new Error(`the conformance suite wrote no results for ${name}`);
  return JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')) as Check[];
}

describe('the official MCP conformance suite (server scenarios) against /mcp', () => {
  it.each(APPLICABLE)('%s passes every check', async (name) => {
    const checks = await scenario(name);
    expect(checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.description}`)).toEqual([]);
    expect(checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  }, 90_000);

  it('runs a scenario that a server with other tools fails, so a failure would show', async () => {
    // tools-call-simple-text calls the reference server's test_simple_text tool, which toolgraph does not have.
    await expect(run(process.execPath, [CLI, 'server', '--url', `${running.origin}/mcp`, '--scenario', 'tools-call-simple-text'], { timeout: 60_000 })).rejects.toMatchObject({ code: 1 });
  }, 90_000);
});
