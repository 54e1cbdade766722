import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/**
 * Runs `body` (an ES module that may use V8's `%` natives) in a child Node that strips the sources'
 * types, and returns what it printed.
 */
function withNatives(body: string): string {
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', body], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`child failed (${run.status}): ${run.stderr}`);
  return run.stdout.trim();
}

// Every GraphQL request reads its GraphSchema's fields (`schema`, `labels`, `roots`, `epoch` …). An
// object literal with a getter (the lazy `sdl`) is made in dictionary mode, so each of those reads
// went through V8's generic lookup: about 1,000 instructions per small query, measured with callgrind.
describe('objects every GraphQL request reads', () => {
  it('a built GraphSchema keeps fast properties, and its SDL is printed when first read', () => {
    const printed = withNatives(`
      import { GraphSchemaBuilder } from './src/graph/graphql/graph-schema-builder.ts';
      const catalogue = {
        epoch: 'e1',
        labels: [{ label: 'Person', properties: { name: 'string', age: 'int' } }],
        edgeTypes: [{ type: 'KNOWS', pairs: [{ src: 'Person', tgt: 'Person' }] }],
      };
      const schema = new GraphSchemaBuilder().build(catalogue);
      console.log(JSON.stringify({ fast: %HasFastProperties(schema), epoch: schema.epoch, sdl: schema.sdl.includes('type Person') }));
    `);
    expect(JSON.parse(printed)).toEqual({ fast: true, epoch: 'e1', sdl: true });
  });
});
