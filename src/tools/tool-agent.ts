import type { Validator } from '../../generated/validators/validator.ts';
import type { ToolActionDefinition, ToolDefinition, ToolJsonSchema } from '../../generated/tools/definitions.ts';
import type { RequestContext } from '../auth/index.ts';
import type { Logger } from '../log/index.ts';

/** What an action knows about the call it runs for. */
export interface ActionContext {
  /**
   * The caller's principal and bearer token, as the auth layer verified them; undefined with
   * AUTH_TYPE=none and over stdio, where the caller is the local operator.
   */
  readonly request: RequestContext | undefined;
  readonly logger: Logger;
  /** Aborted when the client cancels the call or goes away. */
  readonly signal: AbortSignal | undefined;
}

/** One action of a tool: its schemas (from specs/tools/), the generated validator of its input, and what it does. */
export interface ToolAction<I = unknown, O extends object = object> {
  readonly name: string;
  readonly description: string;
  /** The action's own arguments (without the `action` discriminator). */
  readonly inputSchema: ToolJsonSchema;
  readonly outputSchema: ToolJsonSchema;
  readonly validate: Validator<I>;
  /** True when the action only reads (MCP's readOnlyHint). */
  readonly readOnly: boolean;
  /** The caller's token needs one of these scopes (checked before the action runs); none: any valid token. */
  readonly scopes: readonly string[] | undefined;
  run(input: I, context: ActionContext): Promise<O>;
}

/** An action whatever its input and output types: what an agent holds and the registry runs. */
export interface AnyToolAction {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolJsonSchema;
  readonly outputSchema: ToolJsonSchema;
  readonly validate: { (data: unknown): boolean; errors?: Validator<unknown>['errors'] };
  readonly readOnly: boolean;
  readonly scopes: readonly string[] | undefined;
  run(input: never, context: ActionContext): Promise<object>;
}

/** A tool: an agent with actions. MCP lists one tool per agent; a call names the action in `arguments.action`. */
export interface ToolAgent {
  readonly name: string;
  readonly description: string;
  readonly actions: readonly AnyToolAction[];
  /**
   * True when a call may answer with the caller's consent to ask for (a three-legged agent with
   * per-caller consent): the tool's output schema then admits that structured content too.
   */
  readonly asksConsent?: boolean;
  /**
   * An operation tool (operation-tools.ts): one action, called with its own arguments (no `action`
   * discriminator), listed with exactly these schemas (its SchemaManifest's canonical input and
   * output) and this `_meta` (the manifest's digest and URI).
   */
  readonly operation?: OperationListing;
}

/** How an operation tool is listed: its manifest's canonical schemas and the digest a client checks them against. */
export interface OperationListing {
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
  readonly outputSchema: { type: 'object'; [key: string]: unknown };
  readonly meta: Readonly<Record<string, unknown>>;
}

/**
 * An action from its definition in specs/tools/ (description and schemas) and its generated
 * validator; `run` gets input the validator accepted.
 */
export function defineAction<I, O extends object>(
  name: string,
  definition: ToolActionDefinition,
  validate: Validator<I>,
  options: { readOnly: boolean; scopes?: readonly string[]; run: (input: I, context: ActionContext) => Promise<O> },
): ToolAction<I, O> {
  return Object.freeze({
    name,
    description: definition.description,
    inputSchema: definition.input,
    outputSchema: definition.output,
    validate,
    readOnly: options.readOnly,
    scopes: options.scopes,
    run: options.run,
  });
}

/**
 * An agent named `name` built from a tool definition (an http agent is the `http` template under
 * its own name). Every action must be one the definition has; an action this build cannot serve is
 * left out rather than listed and failing (the catalogue and tools/list never promise it).
 */
export function defineAgent(name: string, definition: ToolDefinition, actions: readonly AnyToolAction[], description?: string, options: { asksConsent?: boolean } = {}): ToolAgent {
  for (const action of actions) {
    if (!(action.name in definition.actions)) throw new Error(`tool ${name}: action ${action.name} is not in its definition (${Object.keys(definition.actions).join(', ')})`);
  }
  return Object.freeze({
    name,
    description: description ?? definition.description,
    actions: Object.freeze([...actions].sort((a, b) => (a.name < b.name ? -1 : 1))),
    ...(options.asksConsent ? { asksConsent: true } : {}),
  });
}
