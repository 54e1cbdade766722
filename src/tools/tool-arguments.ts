import { ToolgraphError, describeValue } from '../errors/index.ts';
import { fieldViolations } from '../validation/index.ts';
import type { AnyToolAction, ToolAgent } from './tool-agent.ts';

/** A call the registry can run: the agent, its action and the action's own arguments, checked. */
export interface ResolvedCall {
  readonly agent: ToolAgent;
  readonly action: AnyToolAction;
  readonly input: unknown;
}

function actionNames(agent: ToolAgent): string {
  return agent.actions.map((a) => a.name).join(', ');
}

/**
 * Picks the action named by `arguments.action` and checks the remaining arguments with the action's
 * generated validator. An unknown action is TG_TOOL_NOT_FOUND naming it and the actions there are;
 * arguments the schema refuses are TG_TOOL_ARGUMENTS_INVALID naming each JSON pointer (relative to
 * `arguments`), what was expected and what came.
 */
export function resolveAction(agent: ToolAgent, args: unknown): ResolvedCall {
  if (agent.operation !== undefined) return resolveOperation(agent, args);
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolgraphError('TG_TOOL_ARGUMENTS_INVALID', `Tool ${agent.name}: arguments must be an object with "action" (one of ${actionNames(agent)}); got ${describeValue(args)}.`, {
      details: { tool: agent.name, violations: [{ pointer: '', expected: 'an object', got: describeValue(args) }] },
    });
  }
  const { action: actionName, ...rest } = args as Record<string, unknown>;
  if (typeof actionName !== 'string') {
    throw new ToolgraphError('TG_TOOL_ARGUMENTS_INVALID', `Tool ${agent.name}: /action: expected one of ${actionNames(agent)}, got ${describeValue(actionName)}.`, {
      details: { tool: agent.name, violations: [{ pointer: '/action', expected: `one of ${actionNames(agent)}`, got: describeValue(actionName) }] },
    });
  }
  const action = agent.actions.find((a) => a.name === actionName);
  if (action === undefined) {
    throw new ToolgraphError('TG_TOOL_NOT_FOUND', `Tool ${agent.name} has no action ${describeValue(actionName)}; its actions are ${actionNames(agent)}.`, {
      details: { tool: agent.name, action: actionName.slice(0, 100), actions: agent.actions.map((a) => a.name) },
    });
  }
  if (!action.validate(rest)) {
    const violations = fieldViolations(action.validate.errors);
    const count = violations.length === 1 ? '1 violation' : `${violations.length} violations`;
    throw new ToolgraphError('TG_TOOL_ARGUMENTS_INVALID', `Invalid arguments for ${agent.name}.${action.name} (${count}): ${violations.map((v) => v.text).join('; ')}.`, {
      details: { tool: agent.name, action: action.name, violations: violations.map(({ pointer, expected, got }) => ({ pointer, expected, got })) },
    });
  }
  return { agent, action, input: rest };
}

/** An operation tool's call: its one action, the whole arguments object checked against the manifest's input schema. */
function resolveOperation(agent: ToolAgent, args: unknown): ResolvedCall {
  const action = agent.actions[0] as AnyToolAction;
  if (!action.validate(args)) {
    const violations = fieldViolations(action.validate.errors);
    const count = violations.length === 1 ? '1 violation' : `${violations.length} violations`;
    throw new ToolgraphError('TG_TOOL_ARGUMENTS_INVALID', `Invalid arguments for ${agent.name} (${count}): ${violations.map((v) => v.text).join('; ')}.`, {
      details: { tool: agent.name, violations: violations.map(({ pointer, expected, got }) => ({ pointer, expected, got })) },
    });
  }
  return { agent, action, input: args };
}
