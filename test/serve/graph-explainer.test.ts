import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/auth/index.ts';
import type { GraphEngine } from '../../src/graph/engine/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { graphExplainerFor } from '../../src/serve/graph-explainer.ts';
import { referenceEngine } from '../graph/graphql/support.ts';
import { openAccess } from '../support/open-access.ts';
import { failure } from '../support/toolgraph-failure.ts';

let engine: GraphEngine;
beforeAll(async () => {
  engine = await referenceEngine();
  // `demo` has no policy in this engine (default deny); `open` gets the open one.
  await engine.createGraph('open');
  await engine.commit({ graph: 'open', mutations: [{ op: 'createNode', id: 'p1', label: 'Person', props: { name: 'Ada' } }] });
  await openAccess(engine, 'open');
});
afterAll(async () => {
  await engine.close();
});

function as(scopes: string[]): { request: RequestContext; logger: ReturnType<typeof silentLogger>; signal: undefined } {
  return { request: { principal: { subject: 'reader', scopes }, token: 'not-logged', resourceMetadataUrl: 'http://127.0.0.1/.well-known/oauth-protected-resource' }, logger: silentLogger(), signal: undefined };
}

describe('graph.explain honours the access policy', () => {
  it('answers a graph the caller may not read exactly as a missing one, so its schema never shows', async () => {
    const explainer = graphExplainerFor(engine, true);
    const hidden = await failure(explainer({ graph: 'demo', query: '{ Person(first: 1) { name } }' }, as(['kg:read'])));
    const missing = await failure(explainer({ graph: 'nope', query: '{ Person(first: 1) { name } }' }, as(['kg:read'])));
    expect(hidden.code).toBe('TG_GRAPH_NOT_FOUND');
    expect(hidden.message).toBe(missing.message.replace('"nope"', '"demo"'));
  });

  it('explains graphs the policy lets the caller read, and anything for kg:admin and the local operator', async () => {
    const explainer = graphExplainerFor(engine, true);
    const reader = await explainer({ graph: 'open', query: '{ Person(first: 1) { name } }' }, as(['kg:read']));
    expect(reader.plan.text).toContain('MATCH (person:Person)');
    const admin = await explainer({ graph: 'demo', query: '{ Person(first: 1) { name } }' }, as(['kg:admin']));
    expect(admin.plan.text).toContain('MATCH (person:Person)');
    const local = await explainer({ graph: 'demo', query: '{ Person(first: 1) { name } }' }, { request: undefined, logger: silentLogger(), signal: undefined });
    expect(local.plan.cypher).toEqual(admin.plan.cypher);
  });
});
