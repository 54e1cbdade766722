import type { RequestContext } from '../auth/index.ts';
import { ToolgraphError, describeValue } from '../errors/index.ts';
import { toolActionSource, type JsonSchema, type SchemaSource } from '../manifest/index.ts';
import { inSpan, type SpanHandle } from '../observability/tracing/index.ts';
import { requireScope } from '../principal/index.ts';
import type { ActionContext, ToolAgent } from './tool-agent.ts';
import { resolveAction, type ResolvedCall } from './tool-arguments.ts';
import { CONSENT_REQUIRED_SCHEMA, toolError, toolSuccess, type ToolResult } from './tool-result.ts';

/** A tool as MCP `tools/list` describes it. */
export interface ListedTool {
  [key: string]: unknown;
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema: { type: 'object'; [key: string]: unknown };
  annotations: { readOnlyHint: boolean };
}

/** Told how each tool call that reached its action ended (`ok` or the error code) and how long it ran (the metrics). */
export type ToolCallObserver = (outcome: string, ms: number) => void;

/** The catalogue source name of the tool server's actions; operations are named `<tool>_<action>`. */
export const TOOLS_CATALOGUE_SOURCE = 'tools';

/**
 * One tool per agent, its action picked by `arguments.action`: the spec's REST call is
 * `{name, arguments: {action, …}}`, so MCP's `tools/call` takes the same shape and both reach the
 * same code. The input schema MCP lists is a `oneOf` of one object per action, each with its
 * `action` constant.
 */
function listedInputSchema(agent: ToolAgent): ListedTool['inputSchema'] {
  return {
    type: 'object',
    properties: { action: { type: 'string', enum: agent.actions.map((a) => a.name), description: 'The action to run.' } },
    required: ['action'],
    oneOf: agent.actions.map((action) => {
      const schema = action.inputSchema as { properties?: Record<string, unknown>; required?: readonly string[] };
      return {
        ...action.inputSchema,
        description: `${agent.name}.${action.name}: ${action.description}`,
        properties: { action: { const: action.name }, ...(schema.properties ?? {}) },
        required: ['action', ...(schema.required ?? [])],
      };
    }),
  };
}

/** Every output the tool can answer (and the consent it may ask for); a client checks structuredContent against it. */
function listedOutputSchema(agent: ToolAgent): ListedTool['outputSchema'] {
  return { type: 'object', anyOf: [...agent.actions.map((a) => a.outputSchema), ...(agent.asksConsent ? [CONSENT_REQUIRED_SCHEMA] : [])] };
}

/**
 * The one tool registry: MCP `tools/list` and `tools/call`, the REST `POST /mcp/tools/call` and the
 * schema catalogue all read it.
 */
export class ToolRegistry {
  readonly #agents: ReadonlyMap<string, ToolAgent>;
  readonly #builtIn: readonly ListedTool[];
  #operations: ReadonlyMap<string, ToolAgent> = new Map();
  #operationListed: ReadonlyMap<string, ListedTool> = new Map();
  #listed: readonly ListedTool[];
  readonly #listeners = new Set<() => void>();
  #observer: ToolCallObserver | undefined;

  constructor(agents: readonly ToolAgent[]) {
    const byName = new Map<string, ToolAgent>();
    for (const agent of agents) {
      if (byName.has(agent.name)) throw new ToolgraphError('TG_CONFIG_INVALID', `Two tools are named ${JSON.stringify(agent.name)}; tool names must be unique.`);
      byName.set(agent.name, agent);
    }
    this.#agents = byName;
    this.#builtIn = Object.freeze([...byName.values()].map((agent) => Object.freeze({
      name: agent.name,
      description: `${agent.description} Actions: ${agent.actions.map((a) => `${a.name} (${a.description})`).join('; ')}`,
      inputSchema: listedInputSchema(agent),
      outputSchema: listedOutputSchema(agent),
      annotations: { readOnlyHint: agent.actions.every((a) => a.readOnly) },
    })));
    this.#listed = this.#builtIn;
  }

  /**
   * Replaces the operation tools (operation-tools.ts), listed after the built-in tools in the order
   * given; tells every listener when the list changed (MCP's list-change notifications). A name a
   * built-in tool has, or two operations with one name, is TG_CONFIG_INVALID and changes nothing.
   */
  setOperations(agents: readonly ToolAgent[]): void {
    const byName = new Map<string, ToolAgent>();
    for (const agent of agents) {
      if (agent.operation === undefined) throw new TypeError(`tool ${agent.name} is not an operation tool`);
      if (this.#agents.has(agent.name) || byName.has(agent.name)) throw new ToolgraphError('TG_CONFIG_INVALID', `Two tools are named ${JSON.stringify(agent.name)}; tool names must be unique.`);
      byName.set(agent.name, agent);
    }
    const before = this.#listed;
    const listed = [...byName.values()].map(operationListing);
    this.#operations = byName;
    this.#operationListed = new Map(listed.map((t) => [t.name, t]));
    this.#listed = Object.freeze([...this.#builtIn, ...listed]);
    if (sameListing(before, this.#listed)) return;
    for (const listener of this.#listeners) listener();
  }

  /** Called whenever the tool list changes; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** An operation tool's listing by name. */
  tool(name: string): ListedTool | undefined {
    return this.#operationListed.get(name);
  }

  /** The operation tools, in listing order. */
  operations(): readonly ToolAgent[] {
    return [...this.#operations.values()];
  }

  /**
   * One page of `tools/list`: at most `size` tools from the opaque cursor on, and the cursor of the
   * next page when there is one. A cursor this registry did not make is TG_BAD_REQUEST; one made
   * before the list changed goes on from the same position (the order is stable: built-in tools,
   * then operations in catalogue order).
   */
  page(cursor: string | undefined, size = TOOLS_PAGE_SIZE): { tools: readonly ListedTool[]; nextCursor?: string } {
    const start = cursor === undefined ? 0 : offsetOf(cursor);
    const tools = this.#listed.slice(start, start + size);
    const next = start + tools.length;
    return next < this.#listed.length ? { tools, nextCursor: cursorOf(next) } : { tools };
  }

  /** Sets the one observer of tool calls (see ToolCallObserver). */
  observe(observer: ToolCallObserver): void {
    this.#observer = observer;
  }

  /** The built-in tools' names (an unknown tool's error lists them; search_tools finds the operations). */
  get names(): string[] {
    return [...this.#agents.keys()];
  }

  agent(name: string): ToolAgent | undefined {
    return this.#agents.get(name) ?? this.#operations.get(name);
  }

  list(): readonly ListedTool[] {
    return this.#listed;
  }

  /**
   * The agent and action a call names, its arguments checked: TG_TOOL_NOT_FOUND for an unknown
   * tool or action (naming it and what exists), TG_TOOL_ARGUMENTS_INVALID naming JSON pointers.
   */
  resolve(name: string, args: unknown): ResolvedCall {
    const agent = this.agent(name);
    if (agent === undefined) throw this.resolveError(name);
    return resolveAction(agent, args);
  }

  /** The refusal of a call to a tool that does not exist: every tool named, or the first ten and how many more. */
  resolveError(name: string): ToolgraphError {
    const all = this.#listed.map((t) => t.name);
    const shown = all.length <= UNKNOWN_TOOL_NAMES ? all.join(', ') : `${all.slice(0, UNKNOWN_TOOL_NAMES).join(', ')} and ${all.length - UNKNOWN_TOOL_NAMES} more (tools/list lists them; search_tools finds one by what it does)`;
    return new ToolgraphError('TG_TOOL_NOT_FOUND', `No tool is named ${describeValue(name)}; the tools are ${shown}.`, {
      details: { tool: name.slice(0, 100), tools: all.slice(0, 100) },
    });
  }

  /**
   * Refuses (TG_INSUFFICIENT_SCOPE, naming the scopes) a call whose caller's token lacks every scope
   * the action accepts. Callers check before the call is answered, so the HTTP layer can send 403
   * with the `insufficient_scope` challenge (MCP step-up); without a request context (AUTH_TYPE=none,
   * stdio) the caller is the local operator.
   */
  authorize(call: ResolvedCall, request: RequestContext | undefined): void {
    if (request === undefined || call.action.scopes === undefined) return;
    requireScope(request.principal, call.action.scopes, `The ${call.agent.name}.${call.action.name} action`);
  }

  /**
   * Runs a resolved call. Whatever the action throws becomes a result with `isError: true` and the
   * error's message; the log gets the tool, action, outcome and time, never the arguments.
   */
  run(call: ResolvedCall, context: ActionContext): Promise<ToolResult> {
    // The GenAI conventions' tool execution span: tool and action names, the outcome's code; never the arguments.
    return inSpan(`execute_tool ${call.agent.name}`, {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.agent.name, 'toolgraph.tool.action': call.action.name,
    }, (span) => this.#run(call, context, span));
  }

  async #run(call: ResolvedCall, context: ActionContext, span: SpanHandle): Promise<ToolResult> {
    const started = performance.now();
    const fields = { tool: call.agent.name, action: call.action.name };
    try {
      const output = await call.action.run(call.input as never, context);
      context.logger.info({ ...fields, outcome: 'ok', ms: elapsed(started) }, 'tool call');
      this.#observer?.('ok', performance.now() - started);
      return toolSuccess(output);
    } catch (thrown) {
      const { result, error } = toolError(thrown);
      if (error.code === 'TG_INTERNAL') context.logger.error({ ...fields, err: thrown }, 'tool call failed');
      context.logger.info({ ...fields, outcome: error.code, ms: elapsed(started) }, 'tool call');
      this.#observer?.(error.code, performance.now() - started);
      span.fail(error.code);
      return result;
    }
  }

  /** The actions as a catalogue source: operation `<tool>_<action>`, described as the action is. */
  catalogueSource(): SchemaSource {
    return toolActionSource(TOOLS_CATALOGUE_SOURCE, [...this.#agents.values()].flatMap((agent) => agent.actions.map((action) => ({
      name: `${agent.name}_${action.name}`,
      description: `${agent.name} tool, action ${action.name}: ${action.description}`,
      // The definitions are JSON read from specs/tools/.
      inputSchema: action.inputSchema as JsonSchema,
      outputSchema: action.outputSchema as JsonSchema,
    }))));
  }
}

/** Most tool names an unknown tool's refusal lists. */
const UNKNOWN_TOOL_NAMES = 10;

/** Tools per `tools/list` page: the built-in tools and a few hundred operations fit one. */
export const TOOLS_PAGE_SIZE = 500;

function operationListing(agent: ToolAgent): ListedTool {
  const operation = agent.operation as NonNullable<ToolAgent['operation']>;
  return Object.freeze({
    name: agent.name,
    description: agent.description,
    inputSchema: operation.inputSchema,
    outputSchema: operation.outputSchema,
    annotations: { readOnlyHint: agent.actions.every((a) => a.readOnly) },
    _meta: operation.meta,
  });
}

/** Same tools in the same order with the same digests (an operation's `_meta` names its schema's digest). */
function sameListing(a: readonly ListedTool[], b: readonly ListedTool[]): boolean {
  return a.length === b.length && a.every((tool, i) => tool.name === b[i]?.name && JSON.stringify(tool['_meta']) === JSON.stringify(b[i]?.['_meta']));
}

function cursorOf(offset: number): string {
  return Buffer.from(`tools:${offset}`).toString('base64url');
}

function offsetOf(cursor: string): number {
  const match = /^tools:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match === null) throw new ToolgraphError('TG_BAD_REQUEST', 'The tools/list cursor is not one this server answered; start again without a cursor.', { details: { cursor: cursor.slice(0, 100) } });
  return Number(match[1]);
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
