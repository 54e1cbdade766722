import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { TOOL_DEFINITIONS } from '../../generated/tools/definitions.ts';
import { TOOL_INPUT_VALIDATORS } from '../../generated/validators/tools.ts';
import type { RequestContext } from '../../src/auth/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { authInfoOf, createMcpServer } from '../../src/tools/mcp-server.ts';
import { defineAction, defineAgent, ToolRegistry } from '../../src/tools/index.ts';

const CALLER: RequestContext = {
  principal: { subject: 'ada', scopes: ['secrets:read', '*'] },
  token: 'opaque-caller-token',
  resourceMetadataUrl: 'http://127.0.0.1:4000/.well-known/oauth-protected-resource',
};

describe('MCP tools/call hands the caller to the tool', () => {
  it('as the action context\'s request (there is no ambient context: an AsyncLocalStorage scope would hook every promise of the process)', async () => {
    const seen: { request: RequestContext | undefined }[] = [];
    const probe = defineAgent('probe', TOOL_DEFINITIONS.secrets, [defineAction('get', TOOL_DEFINITIONS.secrets.actions.get, TOOL_INPUT_VALIDATORS.secrets.get, {
      readOnly: true,
      async run(input, context) {
        await Promise.resolve();
        seen.push({ request: context.request });
        return { key: input.key, value: 'not a real secret' };
      },
    })]);
    const server = createMcpServer(new ToolRegistry([probe]), silentLogger());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // What the Streamable HTTP transport does after requireBearer: every message carries the caller.
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => send(message, { ...options, authInfo: authInfoOf(CALLER) });
    await server.connect(serverSide);
    const client = new Client({ name: 'probe-client', version: '1' });
    await client.connect(clientSide);
    const result = await client.callTool({ name: 'probe', arguments: { action: 'get', key: 'team/db' } });
    expect(result.isError).not.toBe(true);
    expect(seen).toEqual([{ request: CALLER }]);
    await client.close();
  });
});

describe('a 2025-era SDK server per request', () => {
  it('shares one JSON Schema validator (the SDK builds an Ajv instance, an eighth of a call, for each server not given one)', () => {
    const registry = new ToolRegistry([]);
    const validatorOf = (server: object): unknown => Reflect.get(server, '_jsonSchemaValidator');
    const first = validatorOf(createMcpServer(registry, silentLogger()));
    expect(first).toBeDefined();
    expect(validatorOf(createMcpServer(registry, silentLogger()))).toBe(first);
  });
});
