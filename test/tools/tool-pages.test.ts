import { describe, expect, it } from 'vitest';
import { InMemorySecretsBackend } from '../../src/secrets/index.ts';
import { createSecretsAgent, ToolRegistry } from '../../src/tools/index.ts';
import type { AnyToolAction, ToolAgent } from '../../src/tools/tool-agent.ts';
import { TOOLS_PAGE_SIZE } from '../../src/tools/tool-registry.ts';
import { failure } from '../support/toolgraph-failure.ts';

/** An operation tool that does nothing: what paging and change notices need of one. */
function operation(name: string, digest = name): ToolAgent {
  const action: AnyToolAction = {
    name: 'run', description: name, inputSchema: { type: 'object' }, outputSchema: { type: 'object' },
    validate: Object.assign(() => true, { errors: undefined }), readOnly: true, scopes: undefined, run: async () => ({}),
  };
  return { name, description: name, actions: [action], operation: { inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, meta: { 'io.toolgraph/schema_sha256': digest } } };
}

describe('tools/list pages and list-change notices of the tool registry', () => {
  it('pages 2,500 operation tools in order with opaque cursors, built-in tools first, and refuses a cursor it did not make', () => {
    const registry = new ToolRegistry([createSecretsAgent(new InMemorySecretsBackend({}))]);
    registry.setOperations(Array.from({ length: 2500 }, (_, i) => operation(`op-${String(i).padStart(4, '0')}`)));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = registry.page(cursor);
      expect(page.tools.length).toBeLessThanOrEqual(TOOLS_PAGE_SIZE);
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(Math.ceil(2501 / TOOLS_PAGE_SIZE));
    expect(seen).toEqual(['secrets', ...Array.from({ length: 2500 }, (_, i) => `op-${String(i).padStart(4, '0')}`)]);
    expect(failure(() => registry.page('not-a-cursor'))).toMatchObject({ code: 'TG_BAD_REQUEST', message: 'The tools/list cursor is not one this server answered; start again without a cursor.' });
  });

  it('tells listeners only when the list changes (names, order or a digest), and refuses a name a built-in tool has', () => {
    const registry = new ToolRegistry([createSecretsAgent(new InMemorySecretsBackend({}))]);
    let changes = 0;
    registry.onChange(() => {
      changes++;
    });
    registry.setOperations([operation('a'), operation('b')]);
    registry.setOperations([operation('a'), operation('b')]);
    expect(changes).toBe(1);
    registry.setOperations([operation('a'), operation('b', 'new digest')]);
    expect(changes).toBe(2);
    registry.setOperations([operation('b', 'new digest'), operation('a')]);
    expect(changes).toBe(3);
    expect(failure(() => registry.setOperations([operation('secrets')]))).toMatchObject({ code: 'TG_CONFIG_INVALID' });
    expect(registry.list().map((t) => t.name)).toEqual(['secrets', 'b', 'a']);
  });
});
