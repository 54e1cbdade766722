import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runProgram } from '../../src/cli/program.ts';
import { EXIT_FAULT, runCli } from '../../src/cli/run-cli.ts';

function memoryIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

function programThrowing(error: unknown): Command {
  const program = new Command('toolgraph').exitOverride();
  program.command('boom').action(() => {
    throw error;
  });
  return program;
}

describe('runCli never prints a stack trace', () => {
  it('an unexpected fault prints one line naming the file with the details', async () => {
    const io = memoryIo();
    const fault = new TypeError("Cannot read properties of undefined (reading 'x')");
    const code = await runCli(programThrowing(fault), ['boom'], io);
    expect(code).toBe(EXIT_FAULT);
    expect(io.errors).toHaveLength(1);
    const match = /^toolgraph: internal error \(TypeError: Cannot read properties of undefined \(reading 'x'\)\); the details are in (\S+)\. Please report it\.$/.exec(io.errors[0]!);
    expect(match, io.errors[0]).not.toBeNull();
    const report = readFileSync(match![1]!, 'utf8');
    expect(report).toContain(fault.stack!.split('\n')[1]!.trim());
    rmSync(match![1]!);
  });

  it('a failed system call a user can cause (a missing file) is one line, without a stack', async () => {
    const io = memoryIo();
    let missing: unknown;
    try {
      readFileSync('/nonexistent/toolgraph/input.jsonl');
    } catch (error) {
      missing = error;
    }
    expect(await runCli(programThrowing(missing), ['boom'], io)).toBe(1);
    expect(io.errors).toEqual(["toolgraph: ENOENT: no such file or directory, open '/nonexistent/toolgraph/input.jsonl'"]);
  });

  it('the details file never carries a bearer token', async () => {
    const io = memoryIo();
    await runCli(programThrowing(new Error('upstream said Bearer abc.def.ghi-secret')), ['boom'], io);
    expect(io.errors[0]).not.toContain('abc.def.ghi-secret');
    const file = /the details are in (\S+)\./.exec(io.errors[0]!)![1]!;
    expect(readFileSync(file, 'utf8')).not.toContain('abc.def.ghi-secret');
    rmSync(file);
  });
});

describe('toolgraph cypher refuses values it could never answer with', () => {
  async function cypher(...args: string[]) {
    const io = memoryIo();
    const dataDir = mkdtempSync(join(tmpdir(), 'tg-cli-'));
    const code = await runProgram(['cypher', 'demo', ...args, '--data-dir', dataDir, '--log-level', 'error'], io);
    return { code, out: io.lines.join('\n'), err: io.errors.join('\n') };
  }

  it('a lone surrogate in --params: a NativeResponse error naming where, no stack trace', async () => {
    const result = await cypher("CREATE (n:Junk {id: 'sur1', s: $s})", '--params', '{"s":"\\ud800"}');
    expect(result.code).toBe(1);
    expect(result.err).toBe('');
    expect(JSON.parse(result.out)).toMatchObject({ id: 1, error: { code: 'TG_VALUE_INVALID', details: { where: '$s' } } });
  });

  it('an integer beyond 2^53 in --params is refused, not rounded', async () => {
    const result = await cypher('RETURN $p AS p', '--params', '{"p":18446744073709551614}');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ id: 1, error: { code: 'TG_VALUE_INVALID', details: { where: '$p' } } });
  });
});
