import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { startToolgraph, type RunningToolgraph } from '../../src/serve/index.ts';
import { startIdp, type TestIdp } from '../support/idp.ts';
import { mcpClient } from '../tools/support.ts';

/**
 * Issue 28, F6: the `schemas` tool answered a graph's manifests, schema and fragments to callers the
 * graph's access policy does not let read it, while /schemas/* hid them. Every policy shape of
 * docs/access.md, for a principal it grants and one it does not, is asked on the three surfaces
 * of the catalogue (GET /schemas/*, POST /mcp/tools/call, MCP tools/call over /mcp) with real
 * tokens of a real IdP; the three must answer the same, and show the graph exactly when the
 * policy grants it.
 */

interface Caller {
  readonly sub: string;
  readonly scope: string;
  readonly groups?: readonly string[];
}

interface Shape {
  /** The row of docs/access.md this is. */
  readonly name: string;
  /** The graph's policy; null: the graph has none (default deny). */
  readonly policy: Record<string, unknown> | null;
  readonly caller: Caller;
  readonly sees: boolean;
}

const ROWS = { '*': true };
const READER = 'kg:read';
const SHAPES: readonly Shape[] = [
  { name: 'no policy: default deny', policy: null, caller: { sub: 'ann', scope: READER, groups: ['analysts'] }, sees: false },
  { name: 'no policy: kg:admin bypasses', policy: null, caller: { sub: 'root', scope: 'kg:admin' }, sees: true },
  { name: 'group matcher, caller outside the group (the issue\'s sales caller)', policy: { version: 1, read: [{ group: 'analysts' }], write: [], rows: ROWS }, caller: { sub: 'sam', scope: READER, groups: ['sales'] }, sees: false },
  { name: 'group matcher, caller in the group', policy: { version: 1, read: [{ group: 'analysts' }], write: [], rows: ROWS }, caller: { sub: 'ann', scope: READER, groups: ['analysts'] }, sees: true },
  { name: 'subject matcher, another subject', policy: { version: 1, read: [{ subject: 'auditor-7' }], write: [], rows: ROWS }, caller: { sub: 'auditor-8', scope: READER }, sees: false },
  { name: 'subject matcher, that subject', policy: { version: 1, read: [{ subject: 'auditor-7' }], write: [], rows: ROWS }, caller: { sub: 'auditor-7', scope: READER }, sees: true },
  { name: 'scope matcher, caller without the scope', policy: { version: 1, read: [{ scope: 'kg:write' }], write: [], rows: ROWS }, caller: { sub: 'ann', scope: READER }, sees: false },
  { name: 'scope matcher, caller with the scope', policy: { version: 1, read: [{ scope: 'kg:write' }], write: [], rows: ROWS }, caller: { sub: 'ann', scope: 'kg:read kg:write' }, sees: true },
  { name: 'anyone', policy: { version: 1, read: [{ anyone: true }], write: [], rows: ROWS }, caller: { sub: 'sam', scope: READER, groups: ['sales'] }, sees: true },
  { name: 'empty read list grants nobody', policy: { version: 1, read: [], write: [], rows: ROWS }, caller: { sub: 'ann', scope: READER, groups: ['analysts'] }, sees: false },
  { name: 'a write grant without a read grant shows nothing', policy: { version: 1, read: [{ group: 'analysts' }], write: [{ group: 'sales' }], rows: ROWS }, caller: { sub: 'sam', scope: 'kg:read kg:write', groups: ['sales'] }, sees: false },
  { name: 'a read grant with row rules hiding every row still shows the schema', policy: { version: 1, read: [{ group: 'analysts' }], write: [], rows: { '*': false } }, caller: { sub: 'ann', scope: READER, groups: ['analysts'] }, sees: true },
];

let idp: TestIdp;
let running: RunningToolgraph;
let admin: string;

/** Each shape's graph, with a label of its own so its operations are told apart from every other graph's. */
const graphOf = (i: number) => `shape${i}`;
const labelOf = (i: number) => `Shape${i}Widget`;

async function call(method: string, path: string, bearer: string, body?: unknown): Promise<{ status: number; text: string; bytes: Buffer }> {
  const res = await fetch(`${running.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, text: bytes.toString('utf8'), bytes };
}

beforeAll(async () => {
  idp = await startIdp();
  running = await startToolgraph({
    config: resolveConfig({ env: { HOME: mkdtempSync(join(tmpdir(), 'tg-home-')), PORT: '0', TOOLGRAPH_PERSISTENCE: 'memory', AUTH_TYPE: 'jwt', OIDC_CONFIG_URL: idp.discoveryUrl } }),
    logger: silentLogger(),
  });
  admin = await idp.mintToken({ sub: 'root', scope: 'kg:admin', audience: running.origin });
  const engine = running.engine!;
  for (const [i, shape] of SHAPES.entries()) {
    await engine.createGraph(graphOf(i));
    const created = await call('POST', '/dispatch', admin, { id: 1, graph: graphOf(i), method: { Cypher: { query: `CREATE (:${labelOf(i)} {id: 'w1', name: 'one'})` } } });
    expect(created.status, created.text).toBe(200);
    if (shape.policy !== null) {
      const put = await call('PUT', `/graphs/${graphOf(i)}/access`, admin, shape.policy);
      expect(put.status, put.text).toBe(200);
    }
  }
  await running.settled();
});
afterAll(async () => {
  await running?.close();
  await idp?.close();
});

/** A tool answer as the REST answers compare with it: the structured content, or the error's message (a tool error's text). */
type ToolAnswer = { ok: Record<string, unknown> } | { error: string };

function toolAnswer(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }): ToolAnswer {
  if (result.isError === true) return { error: (result.content as { text: string }[])[0]!.text };
  return { ok: result.structuredContent as Record<string, unknown> };
}

/** The `schemas` tool on one of its two surfaces. */
type ToolSurface = (args: Record<string, unknown>) => Promise<ToolAnswer>;

function restTool(bearer: string): ToolSurface {
  return async (args) => {
    const res = await call('POST', '/mcp/tools/call', bearer, { name: 'schemas', arguments: args });
    expect(res.status, res.text).toBe(200);
    return toolAnswer(JSON.parse(res.text) as Parameters<typeof toolAnswer>[0]);
  };
}

function mcpTool(client: Client): ToolSurface {
  return async (args) => toolAnswer(await client.callTool({ name: 'schemas', arguments: args }) as Parameters<typeof toolAnswer>[0]);
}

interface Manifest {
  readonly operation: string;
  readonly alias: string;
  readonly schema_sha256: string;
  readonly fragment_count: number;
}

/** Every manifest of the shape's graph, as kg:admin sees them (the digests the callers then ask for). */
async function graphManifests(i: number): Promise<Manifest[]> {
  const res = await call('GET', `/schemas/search?q=${labelOf(i)}&limit=100`, admin);
  const found = (JSON.parse(res.text) as { results: { manifest: Manifest }[] }).results.map((r) => r.manifest);
  const ours = found.filter((m) => m.operation.includes(labelOf(i)));
  expect(ours.length, `the admin finds the operations of ${graphOf(i)}`).toBeGreaterThan(0);
  return ours;
}

describe('the catalogue answers the same on /schemas/*, POST /mcp/tools/call and MCP tools/call, for every policy shape of docs/access.md', () => {
  for (const [i, shape] of SHAPES.entries()) {
    it(`${shape.name}: ${shape.sees ? 'shows' : 'hides'} the graph on all three surfaces alike`, async () => {
      const token = await idp.mintToken({ sub: shape.caller.sub, scope: shape.caller.scope, ...(shape.caller.groups ? { groups: shape.caller.groups } : {}), audience: running.origin });
      const { client } = await mcpClient(running.origin, token);
      try {
        const tools: [string, ToolSurface][] = [['POST /mcp/tools/call', restTool(token)], ['MCP tools/call', mcpTool(client)]];
        const manifests = await graphManifests(i);

        // search: the same results, in the same order, with the same scores.
        const rest = await call('GET', `/schemas/search?q=${labelOf(i)}&limit=100`, token);
        expect(rest.status).toBe(200);
        const restResults = (JSON.parse(rest.text) as { results: { manifest: Manifest }[] }).results;
        const restOps = restResults.map((r) => r.manifest.operation).filter((op) => op.includes(labelOf(i)));
        expect(restOps.length > 0, `GET /schemas/search ${shape.sees ? 'lists' : 'does not list'} the graph's operations`).toBe(shape.sees);
        for (const [surface, tool] of tools) {
          expect(await tool({ action: 'search', query: labelOf(i), limit: 100 }), `${surface} search`).toEqual({ ok: { results: restResults } });
        }

        for (const manifest of manifests) {
          // get by digest: the manifest /schemas/{sha} answers and the schema its fragments reassemble to, or the same refusal.
          const byDigest = await call('GET', `/schemas/${manifest.schema_sha256}`, token);
          const fragments: Buffer[] = [];
          const restFragments: { status: number; text: string; bytes: Buffer }[] = [];
          for (let index = 0; index < manifest.fragment_count; index++) {
            const fragment = await call('GET', `/schemas/${manifest.schema_sha256}/fragments/${index}`, token);
            restFragments.push(fragment);
            fragments.push(fragment.bytes);
          }
          if (shape.sees) {
            expect(byDigest.status).toBe(200);
            const schema = JSON.parse(Buffer.concat(fragments).toString('utf8')) as unknown;
            const got = { ok: { manifest: JSON.parse(byDigest.text) as unknown, schema } };
            for (const [surface, tool] of tools) {
              expect(await tool({ action: 'get', name: manifest.schema_sha256 }), `${surface} get by digest`).toEqual(got);
              expect(await tool({ action: 'get', name: manifest.alias }), `${surface} get by alias`).toEqual(got);
            }
          } else {
            expect(byDigest.status).toBe(404);
            const refusal = (JSON.parse(byDigest.text) as { error: { code: string; message: string } }).error;
            expect(refusal.code).toBe('TG_SCHEMA_NOT_FOUND');
            const unknownAlias = await restTool(token)({ action: 'get', name: 'no-such-alias' });
            for (const [surface, tool] of tools) {
              expect(await tool({ action: 'get', name: manifest.schema_sha256 }), `${surface} get by digest`).toEqual({ error: refusal.message });
              // A hidden alias is refused exactly as an alias nobody has.
              const byAlias = await tool({ action: 'get', name: manifest.alias });
              expect(JSON.stringify(byAlias), `${surface} get by alias`).toBe(JSON.stringify(unknownAlias).replace('no-such-alias', manifest.alias));
            }
          }
          // fragment: the bytes /schemas/{sha}/fragments/{index} answers, or the same refusal.
          for (const [index, fragment] of restFragments.entries()) {
            const want: ToolAnswer = fragment.status === 200
              ? { ok: { schema_sha256: manifest.schema_sha256, index, fragment_count: manifest.fragment_count, bytes: fragment.bytes.length, data_base64: fragment.bytes.toString('base64') } }
              : { error: (JSON.parse(fragment.text) as { error: { message: string } }).error.message };
            expect(fragment.status).toBe(shape.sees ? 200 : 404);
            for (const [surface, tool] of tools) {
              expect(await tool({ action: 'fragment', schema_sha256: manifest.schema_sha256, index }), `${surface} fragment ${index}`).toEqual(want);
            }
          }
        }
      } finally {
        await client.close();
      }
    });
  }
});
