import { describe, expect, it } from 'vitest';
import { snapshotStream, type MutationInput } from '../../../src/graph/engine/index.ts';
import { createLogger } from '../../../src/log/index.ts';
import { MemoryPersistence, MemoryStore } from '../../../src/graph/persist/index.ts';
import { openEngine } from './helpers.ts';

/** Nothing ill-formed may be committed: every surface (Cypher, GraphQL, JSON Lines) writes through planBatch. */
describe('ill-formed Unicode', () => {
  async function seeded() {
    const engine = await openEngine();
    await engine.createGraph('g');
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'a', label: 'Junk', props: { s: 'ok', tags: ['x'] } }] });
    return engine;
  }

  it.each([
    ['a lone high surrogate', { op: 'createNode', id: 'sur1', label: 'Junk', props: { s: '\uD800' } }, 'mutations[0]: props.s: expected well-formed Unicode text; got a string with a lone surrogate (U+D800 at index 0)'],
    ['a lone low surrogate after text', { op: 'createNode', id: 'sur2', label: 'Junk', props: { s: 'ab\uDC00' } }, 'props.s: expected well-formed Unicode text; got a string with a lone surrogate (U+DC00 at index 2)'],
    ['a reversed pair', { op: 'updateNode', id: 'a', set: { s: '\uDE00\uD83D' } }, 'set.s: expected well-formed Unicode text; got a string with a lone surrogate (U+DE00 at index 0)'],
    ['a high surrogate at the end', { op: 'updateNode', id: 'a', set: { s: '😀\uD83D' } }, 'U+D83D at index 2'],
    ['a list item', { op: 'updateNode', id: 'a', set: { tags: ['fine', 'x\uD800y'] } }, 'set.tags[1]: expected well-formed Unicode text'],
    ['a new list property', { op: 'createNode', label: 'Junk', props: { t: ['\uDBFF'] } }, 'props.t[0]'],
  ] as const)('refuses %s in a property value with TG_VALUE_INVALID naming where', async (_name, mutation, text) => {
    const engine = await seeded();
    const attempt = engine.commit({ graph: 'g', mutations: [mutation as MutationInput] });
    await expect(attempt).rejects.toMatchObject({ code: 'TG_VALUE_INVALID' });
    const error = (await attempt.catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(text);
    // The message itself must be sendable: the offending value shows escaped.
    expect(error.message.isWellFormed()).toBe(true);
    expect(engine.view('g').version).toBe(1);
    expect(engine.view('g').node('a')?.props).toEqual({ s: 'ok', tags: ['x'] });
  });

  it.each([
    ['a property name', { op: 'createNode', label: 'Junk', props: { 'k\uD800': 1 } }, 'TG_NAME_INVALID'],
    ['an unset name', { op: 'updateNode', id: 'a', set: {}, unset: ['\uD800'] }, 'TG_NAME_INVALID'],
    ['a label', { op: 'createNode', label: 'J\uD800' }, 'TG_NAME_INVALID'],
    ['an edge type', { op: 'addEdge', src: 'a', tgt: 'a', type: 'E\uDC00' }, 'TG_NAME_INVALID'],
    ['a node id', { op: 'createNode', id: 'x\uD800', label: 'Junk' }, 'TG_VALUE_INVALID'],
  ] as const)('refuses ill-formed text in %s, with a well-formed message', async (_name, mutation, code) => {
    const engine = await seeded();
    const error = await engine.commit({ graph: 'g', mutations: [mutation as MutationInput] }).catch((e: Error & { code: string }) => e);
    expect(error).toMatchObject({ code });
    expect((error as Error).message.isWellFormed()).toBe(true);
  });

  it('accepts well-formed text, astral characters (surrogate pairs) included', async () => {
    const engine = await seeded();
    await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'ok', label: 'Junk', props: { s: 'a😀b\uFFFD', tags: ['𝄞', ''] } }] });
    expect(engine.view('g').node('ok')?.props).toEqual({ s: 'a😀b\uFFFD', tags: ['𝄞', ''] });
  });

  it('recovers a log and a snapshot written before lone surrogates were refused: each becomes U+FFFD, with a warning', async () => {
    const store = new MemoryStore();
    const old = new MemoryPersistence({ store });
    const at = '2026-11-22T00:00:00.000Z';
    await old.append({ kind: 'createGraph', graph: 'g', version: 0, at });
    await old.append({ kind: 'batch', batch: { graph: 'g', version: 1, committedAt: at, mutations: [
      { op: 'createNode', id: 'sur1', label: 'Junk', props: { s: '\uD800', tags: ['a\uDC00', 'b'] } },
      { op: 'createNode', id: 'fine', label: 'Junk', props: { s: 'fine' } },
    ] } });
    await old.append({ kind: 'batch', batch: { graph: 'g', version: 2, committedAt: at, mutations: [{ op: 'updateNode', id: 'fine', set: { s: 'x\uDBFF' } }] } });
    // A second graph whose snapshot (an older version wrote it) holds one too.
    await old.append({ kind: 'createGraph', graph: 'h', version: 0, at });
    await old.append({ kind: 'batch', batch: { graph: 'h', version: 1, committedAt: at, mutations: [{ op: 'createNode', id: 'n', label: 'Junk', props: { s: 'ok' } }] } });
    await old.writeSnapshot(snapshotStream({ graph: 'h', version: 1, at, nodes: [{ id: 'n', label: 'Junk', props: { s: '\uD800\uD800' } }], edges: [],
      catalogue: { labels: [{ label: 'Junk', properties: { s: 'String' } }], edgeTypes: [] } }));
    await old.close();

    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => lines.push(line) } });
    const engine = await openEngine({ store, logger });
    const g = engine.view('g');
    expect(g.version).toBe(2);
    expect(g.node('sur1')?.props).toEqual({ s: '\uFFFD', tags: ['a\uFFFD', 'b'] });
    expect(g.node('fine')?.props).toEqual({ s: 'x\uFFFD' });
    expect(engine.view('h').node('n')?.props).toEqual({ s: '\uFFFD\uFFFD' });
    // Every read serialises now.
    expect(JSON.stringify([...g.allNodes()]).isWellFormed()).toBe(true);
    const warnings = lines.map((l) => JSON.parse(l) as { msg: string; version: number; where: string[] });
    expect(warnings.map((w) => [w.version, w.where])).toEqual([[1, ['mutations[0].props.s', 'mutations[0].props.tags']], [2, ['mutations[0].set.s']]]);
    expect(warnings[0]!.msg).toContain('lone surrogates');
    expect(lines.join('')).not.toContain('"g"'); // no graph names in logs
    // New writes go on from there.
    await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'sur1', set: { s: 'fixed' } }] });
    expect(g.version).toBe(3);
    await engine.close();
  });
});
