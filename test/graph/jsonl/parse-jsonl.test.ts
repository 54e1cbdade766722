import { describe, expect, it } from 'vitest';
import { loadJsonl, parseJsonl, withJsonlLine } from '../../../src/graph/jsonl/index.ts';
import { openEngine } from '../engine/helpers.ts';

describe('JSON Lines loader', () => {
  it('reads nodes then edges, skipping blank lines, with their line numbers', () => {
    const text = '{"src":"a","tgt":"b","type":"K"}\n\n{"label":"P","id":"a","props":{"n":1}}\n{"label":"P","id":"b"}\n';
    const parsed = parseJsonl(text, 'g.jsonl');
    expect(parsed.mutations).toEqual([
      { op: 'createNode', id: 'a', label: 'P', props: { n: 1 } },
      { op: 'createNode', id: 'b', label: 'P', props: {} },
      { op: 'addEdge', src: 'a', tgt: 'b', type: 'K' },
    ]);
    expect(parsed.lines).toEqual([3, 4, 1]);
    expect(loadJsonl(text)).toEqual(parsed.mutations);
  });

  it.each([
    ['bad JSON', '{"label":"P","id":"a"}\n{"label":', 'g.jsonl:2: not valid JSON', 'TG_BAD_REQUEST'],
    ['an unknown field', '{"label":"P","id":"a","name":"x"}', 'g.jsonl:1: a node line takes label, id, props; got an unknown field "name"', 'TG_BAD_REQUEST'],
    ['a bad label', '\n{"label":"9P","id":"a"}', 'g.jsonl:2: A label must be a GraphQL name', 'TG_NAME_INVALID'],
    ['a bad value', '{"label":"P","id":"a","props":{"x":{"y":1}}}', 'g.jsonl:1: props.x: expected', 'TG_VALUE_INVALID'],
    ['a non-object', '[1,2]', 'g.jsonl:1: expected a node', 'TG_BAD_REQUEST'],
    ['a bad edge type', '{"src":"a","tgt":"b","type":"has edge"}', 'g.jsonl:1: An edge type must be', 'TG_NAME_INVALID'],
  ])('names the line of %s', (_name, text, message, code) => {
    expect(() => parseJsonl(text, 'g.jsonl')).toThrow(expect.objectContaining({ code, message: expect.stringContaining(message) }));
  });

  it('maps a commit error back to its line', async () => {
    const engine = await openEngine();
    await engine.createGraph('g');
    const parsed = parseJsonl('{"label":"P","id":"a"}\n{"src":"a","tgt":"missing","type":"K"}\n', 'g.jsonl');
    const error = await engine.commit({ graph: 'g', mutations: parsed.mutations }).catch((e: unknown) => withJsonlLine(e, parsed, 'g.jsonl'));
    expect(error).toMatchObject({ code: 'TG_NODE_NOT_FOUND', message: expect.stringMatching(/^g\.jsonl:2: tgt: no node has id "missing"/) });
  });
});
