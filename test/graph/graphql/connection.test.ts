import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { encodeCursor, type GraphqlPipeline } from '../../../src/graph/graphql/index.ts';
import { graphql, pipelineFor, referenceEngine } from './support.ts';

let engine: GraphEngine;
let pipeline: GraphqlPipeline;

beforeEach(async () => {
  engine = await referenceEngine();
  pipeline = pipelineFor(engine);
});
afterEach(async () => {
  await engine.close();
});

interface Page { edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } }

async function page(args: string): Promise<Page> {
  const body = await graphql(pipeline, `{ PersonConnection(${args}) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`);
  expect(body.errors, args).toBeUndefined();
  return body.data!['PersonConnection'] as Page;
}

const allPeople = () => engine.view('demo').scan('Person').map((n) => n.id);

describe('cursor pagination', () => {
  it('walks forward and backward over every node once, in id order', async () => {
    const forward: string[] = [];
    let after = '';
    for (;;) {
      const p = await page(`first: 7${after ? `, after: "${after}"` : ''}`);
      forward.push(...p.edges.map((e) => e.node.id));
      expect(p.pageInfo.hasPreviousPage).toBe(after !== '');
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor!;
    }
    expect(forward).toEqual(allPeople());

    const backward: string[] = [];
    let before = '';
    for (;;) {
      const p = await page(`last: 7${before ? `, before: "${before}"` : ''}`);
      backward.unshift(...p.edges.map((e) => e.node.id));
      expect(p.pageInfo.hasNextPage).toBe(before !== '');
      if (!p.pageInfo.hasPreviousPage) break;
      before = p.pageInfo.startCursor!;
    }
    expect(backward).toEqual(allPeople());
  });

  it('stays stable while nodes are inserted and deleted between pages', async () => {
    const first = await page('first: 5');
    const cursor = first.pageInfo.endCursor!;
    const at = first.edges[4]!.node.id;
    await engine.commit({ graph: 'demo', mutations: [
      { op: 'deleteNode', id: at },
      { op: 'deleteNode', id: first.edges[0]!.node.id },
      { op: 'createNode', id: 'person-000', label: 'Person', props: { name: 'Before everyone' } },
      { op: 'createNode', id: `${at}a`, label: 'Person', props: { name: 'Right after the cursor' } },
    ] });
    const next = await page(`first: 3, after: "${cursor}"`);
    const rest = allPeople().filter((id) => id > at);
    expect(next.edges.map((e) => e.node.id)).toEqual(rest.slice(0, 3));
    expect(next.edges[0]!.node.id).toBe(`${at}a`);
    expect(next.pageInfo.hasPreviousPage).toBe(true);
  });

  it('takes cursor as another name for after, and first then last together', async () => {
    const ids = allPeople();
    const c = encodeCursor('Person', ids[2]!);
    expect((await page(`first: 2, cursor: "${c}"`)).edges.map((e) => e.node.id)).toEqual(ids.slice(3, 5));
    expect((await page(`first: 2, cursor: "${c}", after: "${c}"`)).edges.map((e) => e.node.id)).toEqual(ids.slice(3, 5));
    expect((await page('first: 10, last: 3')).edges.map((e) => e.node.id)).toEqual(ids.slice(7, 10));
    const between = await page(`after: "${c}", before: "${encodeCursor('Person', ids[6]!)}"`);
    expect(between.edges.map((e) => e.node.id)).toEqual(ids.slice(3, 6));
    expect(between.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  });

  it('places an empty page where it sits', async () => {
    const ids = allPeople();
    expect((await page('first: 0')).pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null });
    expect((await page('last: 0')).pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
    expect((await page(`after: "${encodeCursor('Person', ids.at(-1)!)}"`)).pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect((await page('first: 5, id: "nobody"')).pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });

  it('filters a connection by property equality', async () => {
    const p = await page('first: 100, active: false');
    expect(p.edges.map((e) => e.node.id)).toEqual(engine.view('demo').scan('Person', { filter: { active: false } }).map((n) => n.id));
    expect(p.pageInfo.hasNextPage).toBe(false);
  });

  it.each([
    ['garbage', 'not a cursor!', /^after: "not a cursor!" is not a cursor of this server/],
    ['base64 of something else', Buffer.from('hello').toString('base64url'), /is not a cursor of this server/],
    ['another connection\'s cursor', encodeCursor('Organization', 'org-acme'), /belongs to OrganizationConnection, not PersonConnection/],
    ['an empty id', encodeCursor('Person', ''), /belongs to/],
  ])('refuses a malformed or foreign cursor (%s) with TG_CURSOR_INVALID', async (_name, cursor, message) => {
    const body = await graphql(pipeline, `query($c: String) { PersonConnection(first: 2, after: $c) { edges { cursor } } }`, { c: cursor });
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions?.code).toBe('TG_CURSOR_INVALID');
    expect(body.errors![0]!.message).toMatch(message);
    expect(body.errors![0]!.path).toEqual(['PersonConnection']);
  });

  it('refuses a negative first or last and differing after/cursor', async () => {
    for (const args of ['first: -1', 'last: -2', `after: "${encodeCursor('Person', 'a')}", cursor: "${encodeCursor('Person', 'b')}"`]) {
      const body = await graphql(pipeline, `{ PersonConnection(${args}) { edges { cursor } } }`);
      expect(body.data, args).toBeNull();
      expect(body.errors![0]!.extensions?.code, args).toBe('TG_BAD_REQUEST');
    }
  });
});
