import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOOL_DEFINITIONS } from '../../generated/tools/definitions.ts';
import { TOOL_INPUT_VALIDATORS } from '../../generated/validators/tools.ts';
import { openDownstreamCredentials } from '../../src/auth/index.ts';
import { ToolgraphError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { buildCatalogueEntriesStrict, createStaticCatalogue } from '../../src/manifest/index.ts';
import { InMemorySecretsBackend } from '../../src/secrets/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { createSchemasAgent, createSecretsAgent, createToolAgents, defineAction, defineAgent, ToolRegistry } from '../../src/tools/index.ts';
import { failure } from '../support/toolgraph-failure.ts';

const registry = new ToolRegistry([createSchemasAgent(createStaticCatalogue({ publicBaseUrl: 'http://127.0.0.1:4000' })), createSecretsAgent(new InMemorySecretsBackend({}))]);

describe('ToolRegistry.resolve', () => {
  it.each([
    ['nope', { action: 'search' }, 'TG_TOOL_NOT_FOUND', 'No tool is named "nope"; the tools are schemas, secrets.'],
    ['schemas', { action: 'drop' }, 'TG_TOOL_NOT_FOUND', 'Tool schemas has no action "drop"; its actions are fragment, get, search.'],
    ['schemas', [], 'TG_TOOL_ARGUMENTS_INVALID', 'Tool schemas: arguments must be an object with "action" (one of fragment, get, search); got a list of 0 items.'],
    ['schemas', { action: 7 }, 'TG_TOOL_ARGUMENTS_INVALID', 'Tool schemas: /action: expected one of fragment, get, search, got 7.'],
    ['schemas', { action: 'fragment', schema_sha256: 'AB', index: -1 }, 'TG_TOOL_ARGUMENTS_INVALID', 'Invalid arguments for schemas.fragment (2 violations): /schema_sha256: expected a string matching ^[0-9a-f]{64}$, got "AB"; /index: expected an integer from 0 to 4099, got -1.'],
    ['secrets', { action: 'get', key: 'x'.repeat(1025) }, 'TG_TOOL_ARGUMENTS_INVALID', 'Invalid arguments for secrets.get (1 violation): /key: expected a string of 1 to 1024 characters, got a string of 1025 characters.'],
    ['secrets', { action: 'get', key: 'a', 'we/ird~': 1 }, 'TG_TOOL_ARGUMENTS_INVALID', 'Invalid arguments for secrets.get (1 violation): /we~1ird~0: expected no property "we/ird~", got 1.'],
  ])('%s %j', (name, args, code, message) => {
    const error = failure(() => registry.resolve(name, args));
    expect([error.code, error.message]).toEqual([code, message]);
  });

  it('returns the action and its arguments without the discriminator', () => {
    const call = registry.resolve('schemas', { action: 'search', query: 'person', limit: 3 });
    expect([call.agent.name, call.action.name, call.input]).toEqual(['schemas', 'search', { query: 'person', limit: 3 }]);
  });
});

describe('ToolRegistry.run', () => {
  const boom = defineAgent('boom', TOOL_DEFINITIONS.secrets, [defineAction('get', TOOL_DEFINITIONS.secrets.actions.get, TOOL_INPUT_VALIDATORS.secrets.get, {
    readOnly: true,
    async run(input) {
      if (input.key === 'fault') throw new TypeError('a bug with internals at /srv/x');
      throw new ToolgraphError('TG_NO_USER_TOKEN', 'No user token available for delegation');
    },
  })]);
  const own = new ToolRegistry([boom]);
  const context = { request: undefined, logger: silentLogger(), signal: undefined };

  it('answers a ToolgraphError with isError and its message verbatim', async () => {
    expect(await own.run(own.resolve('boom', { action: 'get', key: 'x' }), context)).toEqual({ content: [{ type: 'text', text: 'No user token available for delegation' }], isError: true });
  });

  it('hides an unexpected fault behind "Internal server error."', async () => {
    expect(await own.run(own.resolve('boom', { action: 'get', key: 'fault' }), context)).toEqual({ content: [{ type: 'text', text: 'Internal server error.' }], isError: true });
  });
});

describe('what tools/list and the catalogue say', () => {
  it('an action\'s listed schema accepts exactly the calls its validator accepts', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const tool of registry.list()) {
      const listed = ajv.compile(tool.inputSchema);
      const agent = registry.agent(tool.name)!;
      fc.assert(fc.property(fc.constantFrom(...agent.actions.map((a) => a.name)), fc.dictionary(fc.constantFrom('query', 'limit', 'name', 'key', 'field', 'index', 'schema_sha256', 'x'), fc.oneof(fc.string(), fc.integer({ min: -2, max: 5000 }), fc.constant(null), fc.constant('a'.repeat(64)), fc.constant('0'.repeat(64)))), (action, rest) => {
        const direct = agent.actions.find((a) => a.name === action)!.validate(rest);
        expect(listed({ action, ...rest })).toBe(direct);
      }), { numRuns: 300 });
    }
  });

  it('publishes every action as a catalogue operation <tool>_<action> with the action\'s schemas', () => {
    const entries = buildCatalogueEntriesStrict(registry.catalogueSource());
    expect(entries.map((e) => [e.manifest.operation, e.manifest.alias])).toEqual([
      ['schemas_fragment', 'tools-schemas_fragment'], ['schemas_get', 'tools-schemas_get'], ['schemas_search', 'tools-schemas_search'], ['secrets_get', 'tools-secrets_get'],
    ]);
    const document = JSON.parse(entries.find((e) => e.manifest.operation === 'secrets_get')!.document.toString()) as { input: unknown; output: unknown };
    expect(document.input).toEqual(TOOL_DEFINITIONS.secrets.actions.get.input);
    expect(document.output).toEqual(TOOL_DEFINITIONS.secrets.actions.get.output);
  });
});

describe('generated validators', () => {
  it('exist for every action of every tool definition, and agree with ajv compiling the definition at run time', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [tool, definition] of Object.entries(TOOL_DEFINITIONS)) {
      for (const [action, { input }] of Object.entries(definition.actions as Record<string, { input: object }>)) {
        const generated = (TOOL_INPUT_VALIDATORS as Record<string, Record<string, (v: unknown) => boolean>>)[tool]![action]!;
        const compiled = ajv.compile(input);
        fc.assert(fc.property(fc.jsonValue(), (value) => generated(value) === compiled(value)), { numRuns: 200 });
        fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })), (value) => generated(value) === compiled(value)), { numRuns: 200 });
      }
    }
  });
});

describe('graph.explain', () => {
  it('is listed on the graph agent of the local graph service only, and only when a planner is given', async () => {
    const values = resolveConfig({ env: { HOME: '/nonexistent', TOOLGRAPH_AGENT_OTHER_KIND: 'graph', TOOLGRAPH_AGENT_OTHER_URL: 'http://127.0.0.1:9' } }).values;
    const credentials = await openDownstreamCredentials(values);
    const base = { agents: values.agents, localGraphUrl: 'http://127.0.0.1:4000', tokenAudience: undefined, catalogue: createStaticCatalogue({ publicBaseUrl: 'http://127.0.0.1:4000' }), secrets: new InMemorySecretsBackend({}), credentials, logger: silentLogger() };
    const actionsOf = (agents: { name: string; actions: readonly { name: string }[] }[]) => Object.fromEntries(agents.filter((a) => a.name !== 'schemas' && a.name !== 'secrets').map((a) => [a.name, a.actions.map((x) => x.name)]));
    const explain = async () => ({ graph: 'g', plan: {} });
    expect(actionsOf(createToolAgents({ ...base, explain }).agents)).toEqual({
      graph: ['cypher', 'explain', 'mutate', 'query', 'schema'],
      other: ['cypher', 'mutate', 'query', 'schema'],
    });
    expect(actionsOf(createToolAgents(base).agents)).toEqual({ graph: ['cypher', 'mutate', 'query', 'schema'], other: ['cypher', 'mutate', 'query', 'schema'] });
  });
});
