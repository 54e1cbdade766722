import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaceAccessPolicy } from '../../../src/graph/access/index.ts';
import { answerNativeRequest, parseNativeRequest } from '../../../src/graph/dispatch/index.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import type { Principal } from '../../../src/principal/index.ts';
import { openEngine } from '../engine/helpers.ts';
import { TEAM_POLICY, seedTeams } from './fixture.ts';

// Issue 28, F1 "also under AUTH_TYPE=jwt with row rules": a caller whose reads go through row rules
// (the filtered view) runs the same evaluation, so the same statement is refused on the same budget.
const alice: Principal = { subject: 'alice', scopes: ['kg:read'], groups: ['red'] };
let engine: GraphEngine;

beforeAll(async () => {
  engine = await openEngine();
  await seedTeams(engine, 'g');
  await replaceAccessPolicy(engine, 'g', TEAM_POLICY);
});

afterAll(async () => {
  await engine.close();
});

async function dispatch(query: string, params: Record<string, unknown>): Promise<{ result?: { rows: unknown[][] }; error?: { code: string; details?: unknown } }> {
  const text = JSON.stringify({ id: 1, graph: 'g', method: { Cypher: { query, params } } });
  return JSON.parse((await answerNativeRequest(parseNativeRequest(text), alice, { engine })).text) as never;
}

describe('F1 under row rules', () => {
  const l = Array.from({ length: 450_000 }, (_, i) => i % 10);

  it('refuses a list literal of slices of a large parameter on the result-size budget', async () => {
    const answer = await dispatch(`MATCH (d:Document) RETURN size([${Array.from({ length: 1500 }, () => '$l[0..]').join(', ')}]) AS n`, { l });
    expect(answer.error).toMatchObject({ code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxResultBytes', setting: 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES' } });
  });

  it('answers the same statement over a small list, on the rows the caller may see', async () => {
    const answer = await dispatch('MATCH (d:Document) RETURN count(*) AS n, size([$l[0..], $l[1..]]) AS s', { l: [1, 2, 3] });
    expect(answer.result?.rows).toEqual([[3, 2]]);
  });
});
