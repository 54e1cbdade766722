import { readFileSync } from 'node:fs';
import { ToolgraphError } from '../errors/index.ts';
import { rememberSecret } from '../log/redaction.ts';
import { Invalid } from './value-parsers.ts';
import { SETTINGS, type ResolvedValues, type SettingDef, type SettingName } from './settings.ts';
import { suggestSimilar } from './suggest-similar.ts';
import { xdgPaths } from './xdg-paths.ts';

export type SettingSource = 'flag' | 'env' | 'config' | 'default';

export interface ResolvedConfig {
  values: ResolvedValues;
  sources: Record<SettingName, SettingSource>;
  /** The config.json that was read, or undefined when there was none. */
  configFile: string | undefined;
}

export interface ResolveInputs {
  /** Values from the command line, keyed by setting name (commander's camelCase option names). */
  flags?: Partial<Record<SettingName, unknown>>;
  env?: NodeJS.ProcessEnv;
  /** Overrides the XDG location of config.json (tests; `--config`). */
  configFile?: string;
}

type AnyDef = SettingDef<unknown, unknown>;

function invalid(message: string, details: Record<string, unknown>): ToolgraphError {
  return new ToolgraphError('TG_CONFIG_INVALID', message, { details });
}

function readConfigFile(path: string, explicit: boolean): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!explicit && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw invalid(`config file ${path}: cannot be read (${(error as Error).message})`, { file: path });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid(`config file ${path}: expected a JSON object, got invalid JSON (${(error as Error).message})`, { file: path });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid(`config file ${path}: expected a JSON object, got ${Array.isArray(parsed) ? 'an array' : JSON.stringify(parsed)}`, { file: path });
  }
  const known = new Set(Object.values(SETTINGS as Record<string, AnyDef>).flatMap((def) => (def.configKey ? [def.configKey] : [])));
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) {
      // Not all ~70 keys: the nearest one, and where the whole list is.
      const near = suggestSimilar(key, [...known]);
      throw invalid(`config file ${path}: unknown key "${key}"${near ? ` ${near}` : ''}; \`toolgraph config\` lists every setting with its config key, as does the Configuration table of the README`, { file: path, key });
    }
  }
  return parsed as Record<string, unknown>;
}

function rawLabel(raw: unknown): string {
  return typeof raw === 'string' ? JSON.stringify(raw) : JSON.stringify(raw) ?? String(raw);
}

/**
 * Resolves every setting once: CLI flag > env var > config.json > default. A bad value stops with
 * TG_CONFIG_INVALID naming the setting, its source, what was expected and what came.
 */
export function resolveConfig(inputs: ResolveInputs = {}): ResolvedConfig {
  const env = inputs.env ?? process.env;
  const flags = inputs.flags ?? {};
  const configPath = inputs.configFile ?? xdgPaths(env).configFile;
  const file = readConfigFile(configPath, inputs.configFile !== undefined);

  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const [name, def] of Object.entries(SETTINGS as Record<string, AnyDef>)) {
    if (def.resolve) {
      const resolved = def.resolve({ flag: flags[name as SettingName], env, config: def.configKey ? file?.[def.configKey] : undefined, configPath });
      values[name] = resolved.value;
      sources[name] = resolved.source;
      for (const secret of resolved.secrets) rememberSecret(secret);
      continue;
    }
    let raw: unknown;
    let source: SettingSource = 'default';
    let label = name;
    const flagValue = flags[name as SettingName];
    if (def.flag && flagValue !== undefined) {
      raw = flagValue;
      source = 'flag';
      label = def.flag;
    } else if (def.env && env[def.env] !== undefined && env[def.env] !== '') {
      raw = env[def.env];
      source = 'env';
      label = def.env;
    } else if (def.configKey && file && file[def.configKey] !== undefined) {
      raw = file[def.configKey];
      source = 'config';
      label = def.configKey;
    }
    if (source === 'default') {
      values[name] = typeof def.default === 'function' ? (def.default as (e: NodeJS.ProcessEnv) => unknown)(env) : def.default;
    } else {
      const parsed = def.parser.parse(raw);
      if (parsed === Invalid) {
        const where = source === 'config' ? `config file ${configPath}` : source;
        const shown = def.secret === 'whole' ? '[REDACTED]' : rawLabel(raw);
        throw invalid(`${label} from ${where}: expected ${def.parser.expected}, got ${shown}`, { setting: name, source });
      }
      values[name] = parsed;
      rememberSecretSetting(def, parsed);
    }
    sources[name] = source;
  }
  const resolved: ResolvedConfig = {
    values: values as ResolvedValues,
    sources: sources as Record<SettingName, SettingSource>,
    configFile: file ? configPath : undefined,
  };
  checkCombinations(resolved.values);
  return resolved;
}

/** Secret settings are remembered by the log scrubber, so no log line carries them, even in free text. */
function rememberSecretSetting(def: AnyDef, value: unknown): void {
  if (typeof value !== 'string' || def.secret === undefined) return;
  if (def.secret === 'whole') {
    rememberSecret(value);
    return;
  }
  const password = URL.canParse(value) ? new URL(value).password : '';
  if (password === '') return;
  rememberSecret(password);
  try {
    rememberSecret(decodeURIComponent(password));
  } catch {
    // A malformed escape: the raw form is remembered already.
  }
}

function require(condition: boolean, message: string, setting: SettingName): void {
  if (!condition) throw invalid(message, { setting });
}

/** How to give the discovery URL, where a rule needs it: each source, and where to get one to try things. */
const SET_OIDC_CONFIG_URL = "(set OIDC_CONFIG_URL, --oidc-config-url or config key oidc_config_url to the IdP's discovery document, its /.well-known/openid-configuration URL; for a local test IdP, `npm run dev:idp` in a toolgraph checkout starts one and prints the URL)";

/** Rules that join settings ("Required: for OIDC", "for delegation", …). */
function checkCombinations(values: ResolvedValues): void {
  const proxy = values.authType === 'oidc-proxy' || values.authType === 'oauth-proxy';
  require(values.authType !== 'oidc-proxy' || values.oidcConfigUrl !== undefined, `OIDC_CONFIG_URL is required when AUTH_TYPE is oidc-proxy: the IdP's endpoints and keys are found through discovery ${SET_OIDC_CONFIG_URL}`, 'oidcConfigUrl');
  require(!proxy || values.oidcClientId !== undefined, `OIDC_CLIENT_ID is required when AUTH_TYPE is ${values.authType}: it is the proxy's client at the IdP (set OIDC_CLIENT_ID, --oidc-client-id or config key oidc_client_id)`, 'oidcClientId');
  // oauth-proxy: an IdP without OIDC discovery, given by its endpoints, issuer and key set.
  const explicit = values.authType === 'oauth-proxy' && values.oidcConfigUrl === undefined;
  for (const [name, env] of [['oauthAuthorizationEndpoint', 'OAUTH_AUTHORIZATION_ENDPOINT'], ['oauthTokenEndpoint', 'OAUTH_TOKEN_ENDPOINT'], ['oauthIssuer', 'OAUTH_ISSUER'], ['oauthJwksUri', 'OAUTH_JWKS_URI']] as const) {
    require(!explicit || values[name] !== undefined, `${env} is required when AUTH_TYPE is oauth-proxy without OIDC_CONFIG_URL (give OIDC_CONFIG_URL, an OIDC or RFC 8414 discovery document, or all of OAUTH_AUTHORIZATION_ENDPOINT, OAUTH_TOKEN_ENDPOINT, OAUTH_ISSUER and OAUTH_JWKS_URI)`, name);
  }
  const verifies = values.authType === 'jwt' || values.authType === 'remote';
  require(!verifies || values.oidcConfigUrl !== undefined, `OIDC_CONFIG_URL is required when AUTH_TYPE is ${values.authType}: the signing keys are found through discovery ${SET_OIDC_CONFIG_URL}`, 'oidcConfigUrl');
  require(!values.enableDelegation || values.audience !== undefined, 'AUDIENCE is required when ENABLE_DELEGATION is true (set AUDIENCE or config key delegation_audience)', 'audience');
  require(!values.enableDelegation || values.oidcConfigUrl !== undefined, `OIDC_CONFIG_URL is required when ENABLE_DELEGATION is true: the token endpoint is found through discovery ${SET_OIDC_CONFIG_URL}`, 'oidcConfigUrl');
  require(values.persistence !== 'postgres' || values.databaseUrl !== undefined, 'DATABASE_URL is required when TOOLGRAPH_PERSISTENCE is postgres', 'databaseUrl');
  if (values.secretsBackend === 'store') {
    const method = values.storeAuthMethod;
    require(method !== 'token' || values.storeToken !== undefined, 'STORE_TOKEN is required when STORE_AUTH_METHOD is token', 'storeToken');
    require(method !== 'approle' || (values.storeRoleId !== undefined && values.storeSecretId !== undefined), 'STORE_ROLE_ID and STORE_SECRET_ID are required when STORE_AUTH_METHOD is approle', 'storeRoleId');
  }
}
