import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';

async function run(dataDir: string, ...args: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const io: CliIo = { out: (l) => lines.push(l), err: (l) => errors.push(l) };
  const code = await runProgram([...args, '--data-dir', dataDir, '--log-level', 'error'], io);
  return { code, out: lines.join('\n'), err: errors.join('\n') };
}

const POLICY = { version: 1, read: [{ group: 'eng' }], write: [], rows: { Person: true } };

describe('toolgraph access get|set on a file store', () => {
  it('reads none, stores a policy from a file (surviving the process), and refuses a bad one naming the pointer', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-access-'));
    expect((await run(dataDir, 'graph', 'create', 'people')).code).toBe(0);

    const none = await run(dataDir, 'access', 'get', 'people');
    expect(none.code).toBe(0);
    expect(JSON.parse(none.out)).toEqual({ graph: 'people', version: 0, policy: null });

    const file = join(dataDir, 'policy.json');
    writeFileSync(file, JSON.stringify(POLICY));
    const set = await run(dataDir, 'access', 'set', 'people', '--file', file);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out)).toEqual({ graph: 'people', version: 1, policy: POLICY });
    expect(JSON.parse((await run(dataDir, 'access', 'get', 'people')).out)).toEqual({ graph: 'people', version: 1, policy: POLICY });

    writeFileSync(file, JSON.stringify({ ...POLICY, read: [{ team: 'eng' }] }));
    const bad = await run(dataDir, 'access', 'set', 'people', '--file', file);
    expect(bad.code).toBe(1);
    expect(`${bad.out}\n${bad.err}`).toContain('TG_ACCESS_POLICY_INVALID');
    expect(`${bad.out}\n${bad.err}`).toContain('/read/0/team');
    expect(JSON.parse((await run(dataDir, 'access', 'get', 'people')).out)).toMatchObject({ version: 1 });

    const missing = await run(dataDir, 'access', 'get', 'nope');
    expect(missing.code).toBe(1);
    expect(`${missing.out}\n${missing.err}`).toContain('TG_GRAPH_NOT_FOUND');
  });
});
