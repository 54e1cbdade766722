import { TOOL_DEFINITIONS } from '../../generated/tools/definitions.ts';
import { TOOL_INPUT_VALIDATORS } from '../../generated/validators/tools.ts';
import type { SecretsGetOutput } from '../../generated/types/tools.ts';
import { ToolgraphError } from '../errors/index.ts';
import type { SecretsBackend } from '../secrets/index.ts';
import { defineAction, defineAgent, type ToolAgent } from './tool-agent.ts';

const definition = TOOL_DEFINITIONS.secrets;
const validators = TOOL_INPUT_VALIDATORS.secrets;

/**
 * The `secrets` tool. The read runs with the caller's own token (the request context's), so with
 * the store and OIDC/JWT store auth the store logs in as that user and applies that user's policies;
 * without a token (AUTH_TYPE=none) the store's other auth methods apply (`auto`), or `oidc` refuses
 * with `No user token available for delegation`.
 */
export function createSecretsAgent(backend: SecretsBackend): ToolAgent {
  return defineAgent('secrets', definition, [
    defineAction('get', definition.actions.get, validators.get, {
      readOnly: true,
      async run(input, context): Promise<SecretsGetOutput> {
        const token = context.request?.token;
        const value = await backend.get(input.key, token === undefined ? {} : { userToken: token });
        if (input.field === undefined) return { key: input.key, value };
        if (typeof value === 'string') {
          throw new ToolgraphError('TG_SECRET_NOT_FOUND', `field ${JSON.stringify(input.field)}: the secret ${JSON.stringify(input.key)} is a string, not an object (read it without field).`, { details: { key: input.key } });
        }
        if (!Object.hasOwn(value, input.field)) {
          // Field names only, never values.
          throw new ToolgraphError('TG_SECRET_NOT_FOUND', `The secret ${JSON.stringify(input.key)} has no field ${JSON.stringify(input.field)}; its fields are ${Object.keys(value).map((k) => JSON.stringify(k)).join(', ') || '(none)'}.`, { details: { key: input.key, field: input.field } });
        }
        return { key: input.key, field: input.field, value: value[input.field] };
      },
    }),
  ]);
}
