import type { AgentsSettings } from '../config/index.ts';
import { ToolgraphError, isToolgraphError } from '../errors/index.ts';
import { rememberSecret } from '../log/index.ts';
import type { SecretsBackend } from '../secrets/index.ts';

/**
 * The client secrets agents name by `client_secret_ref` (`key`, or `key#field` for one field of an
 * object secret), read from the secrets backend once at start-up, as the local operator (no caller
 * token: OIDC/JWT store auth needs another method for this). A secret that cannot be read stops
 * start-up naming the agent and the setting; values are remembered by the log scrubber.
 */
export async function readClientSecrets(agents: AgentsSettings, secrets: SecretsBackend): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const settings of Object.values(agents)) {
    const ref = settings.clientSecretRef;
    if (ref === undefined) continue;
    const hash = ref.lastIndexOf('#');
    const key = hash < 0 ? ref : ref.slice(0, hash);
    const field = hash < 0 ? undefined : ref.slice(hash + 1);
    const refuse = (why: string, cause?: unknown) => new ToolgraphError('TG_CONFIG_INVALID', `agent ${settings.name}: client_secret_ref ${JSON.stringify(ref)}: ${why}`, { details: { setting: 'agents', agent: settings.name, field: 'client_secret_ref' }, ...(cause === undefined ? {} : { cause }) });
    let value: unknown;
    try {
      const secret = await secrets.get(key);
      value = field === undefined ? secret : typeof secret === 'string' ? undefined : secret[field];
    } catch (error) {
      throw refuse(`the ${secrets.kind} secrets backend could not read it: ${isToolgraphError(error) ? error.message : 'an unexpected fault'}`, error);
    }
    if (typeof value !== 'string' || value === '') {
      throw refuse(field === undefined ? 'expected the secret to be a string (name a field with key#field for an object secret)' : `expected field ${JSON.stringify(field)} of the secret to be a non-empty string`);
    }
    rememberSecret(value);
    found[settings.name] = value;
  }
  return found;
}
