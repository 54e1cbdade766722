import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const toolsDoc = readFileSync(new URL('docs/tools.md', root), 'utf8');

/** The truth: each tool's actions as specs/tools/*.json defines them (codegen compiles these). */
const defined = new Map(readdirSync(new URL('specs/tools/', root)).filter((f) => f.endsWith('.json')).map((file) => {
  const spec = JSON.parse(readFileSync(new URL(`specs/tools/${file}`, root), 'utf8')) as { name: string; actions: Record<string, unknown> };
  return [spec.name, Object.keys(spec.actions).sort()] as const;
}));

describe('docs/tools.md lists the tools as they are', () => {
  const start = toolsDoc.indexOf('| tool | actions | what it does |');
  const table = toolsDoc.slice(start, toolsDoc.indexOf('\n\n', start));
  const rows = new Map([...table.matchAll(/^\| (`(\w+)`|each configured http agent) \| ([^|]+) \|/gm)].map((m) => [m[2] ?? 'http', [...m[3]!.matchAll(/`(\w+)`/g)].map((a) => a[1]!).sort()] as const));

  it('has one row per tool', () => {
    expect(start).toBeGreaterThan(0);
    expect([...rows.keys()].sort()).toEqual([...defined.keys()].sort());
  });

  it.each([...defined])('%s: every action, and no other', (tool, actions) => {
    expect(rows.get(tool)).toEqual(actions);
  });

  it('quotes the unknown-action refusal with the graph agent\'s actions', () => {
    const quoted = /its actions are ([a-z, ]+)\./.exec(toolsDoc)?.[1];
    expect(quoted?.split(', ')).toEqual(defined.get('graph'));
  });
});
