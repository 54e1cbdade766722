import { ToolgraphError } from '../errors/index.ts';
import { OPERATION_NAME_MAX_LENGTH, OPERATION_NAME_PATTERN } from './limits.ts';

/** An operation whose name cannot be a SchemaManifest `operation`, and why. */
export interface OperationNameProblem {
  readonly source: string;
  readonly operation: string;
  readonly reason: string;
}

/** Why `name` cannot be an operation name, or undefined when it can. */
export function operationNameProblem(name: string): string | undefined {
  if (name.length > OPERATION_NAME_MAX_LENGTH) return `longer than ${OPERATION_NAME_MAX_LENGTH} characters (${name.length})`;
  if (!OPERATION_NAME_PATTERN.test(name)) return `does not match ${OPERATION_NAME_PATTERN.source}`;
  return undefined;
}

/** One TG_OPERATION_NAME_INVALID error naming every offending operation (names are never rewritten). */
export function operationNameError(problems: readonly OperationNameProblem[]): ToolgraphError {
  const listed = problems.map((p) => `${p.source}: ${JSON.stringify(shorten(p.operation))} ${p.reason}`).join('; ');
  const noun = problems.length === 1 ? 'operation name is' : `${problems.length} operation names are`;
  return new ToolgraphError('TG_OPERATION_NAME_INVALID', `${noun} invalid (expected ${OPERATION_NAME_PATTERN.source}, at most ${OPERATION_NAME_MAX_LENGTH} characters): ${listed}.`, {
    details: { operations: problems.map((p) => ({ source: p.source, operation: p.operation, reason: p.reason })) },
  });
}

function shorten(name: string): string {
  return name.length <= 80 ? name : `${name.slice(0, 77)}...`;
}
