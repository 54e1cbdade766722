import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readScopes, WRITE_SCOPES } from '../../src/principal/index.ts';
import type { RunningToolgraph } from '../../src/serve/index.ts';
import { delegatedScopesFor } from '../../src/tools/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { mcpClient, startServe } from './support.ts';

let idp: TestIdp;
let running: RunningToolgraph;

beforeAll(async () => {
  idp = await startIdp();
  const state = mkdtempSync(join(tmpdir(), 'tg-graph-delegation-'));
  // Delegation on with the spec's default DELEGATED_SCOPES=api. AUDIENCE (required with delegation)
  // names some other API: the local graph service's audience is TOKEN_AUDIENCE, this server's own.
  running = await startServe({
    env: {
      AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret,
      ENABLE_DELEGATION: 'true', AUDIENCE: 'https://api.elsewhere.test', TOOLGRAPH_STATE_DIR: state, TOOLGRAPH_AUDIT_LOG: join(state, 'audit.jsonl'),
    },
  });
});
afterAll(async () => {
  await running?.close();
  await idp?.close();
});

describe('ENABLE_DELEGATION with the default DELEGATED_SCOPES=api: the built-in graph tool asks for what each action needs', () => {
  it('query and mutate succeed; each exchanged token carries the action\'s scope for the graph service\'s audience, never `api`', async () => {
    const caller = await idp.mintToken({ sub: 'graph-writer', scope: 'kg:read kg:write', audience: running.origin });
    const { client } = await mcpClient(running.origin, caller);
    const before = idp.exchanges.length;
    const read = await client.callTool({ name: 'graph', arguments: { action: 'query', graph: 'demo', query: '{ Organization(first: 1) { name } }' } });
    expect(read.isError, JSON.stringify(read)).not.toBe(true);
    expect(read.structuredContent).toMatchObject({ data: { Organization: [{ name: expect.any(String) }] } });
    const write = await client.callTool({ name: 'graph', arguments: { action: 'mutate', graph: 'demo', query: 'mutation { createNode(label: "Topic", id: "topic-delegated", props: {name: "Delegated"}) { id } }' } });
    expect(write.isError, JSON.stringify(write)).not.toBe(true);
    expect(write.structuredContent).toMatchObject({ data: { createNode: { id: 'topic-delegated' } } });
    const cypher = await client.callTool({ name: 'graph', arguments: { action: 'cypher', graph: 'demo', query: 'MATCH (t:Topic {id: "topic-delegated"}) RETURN t.name AS name' } });
    expect(cypher.structuredContent).toMatchObject({ columns: ['name'], rows: [['Delegated']] });
    expect(idp.exchanges.slice(before)).toEqual([
      { sub: 'graph-writer', audience: running.origin, scope: 'kg:read' },
      { sub: 'graph-writer', audience: running.origin, scope: 'kg:write' },
      { sub: 'graph-writer', audience: running.origin, scope: 'kg:read kg:write' },
    ]);
    await client.close();
  });
});

describe('delegatedScopesFor', () => {
  const query = [{ scopes: readScopes('graphql') }];
  const cypher = [{ scopes: readScopes('cypher') }, { scopes: WRITE_SCOPES, optional: true }];
  it.each([
    ['a reader querying', query, ['kg:read'], 'kg:read'],
    ['a writer querying: the least scope that reads', query, ['kg:write', 'kg:read'], 'kg:read'],
    ['a caller with only query:graphql', query, ['query:graphql'], 'query:graphql'],
    ['a writer mutating', [{ scopes: WRITE_SCOPES }], ['kg:read', 'kg:write'], 'kg:write'],
    ['a reader running Cypher: no write scope it does not hold', cypher, ['kg:read'], 'kg:read'],
    ['a writer running Cypher', cypher, ['kg:read', 'kg:write'], 'kg:read kg:write'],
    ['a caller holding only kg:write runs Cypher with it', cypher, ['kg:write'], 'kg:write'],
    ['no caller scopes: the group\'s first', query, undefined, 'kg:read'],
  ] as const)('%s', (_what, groups, held, want) => {
    expect(delegatedScopesFor(groups, held)).toBe(want);
  });
});
