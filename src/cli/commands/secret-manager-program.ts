import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { ResolvedValues } from '../../config/index.ts';
import { ToolgraphError } from '../../errors/index.ts';
import type { Logger } from '../../log/index.ts';
import type { SecretValue, SecretsContext } from '../../secrets/index.ts';
import { processIo, type CliIo } from '../cli-io.ts';
import { runCli } from '../run-cli.ts';
import { pointToHelp } from '../point-to-help.ts';
import { addSettingOptions } from '../setting-options.ts';
import { printDevicePrompt, printSignedIn } from '../sign-in-output.ts';
import { TOOLGRAPH_VERSION } from '../version.ts';

/** The name `secret-manager login` stores its device-flow token set under ({state_dir}/tokens/secret-manager.json). */
const SECRET_MANAGER_SESSION = 'secret-manager';

/** The flags `secret-manager` shows in its help (the spec's five, plus ours); other setting flags stay accepted but hidden. */
const SHOWN_FLAGS: ReadonlySet<string> = new Set([
  '--backend', '--store-auth', '--store-auth-mount', '--store-role', '--store-path-prefix',
  '--id-token-file', '--secrets-file', '--log-level', '--config', '--version',
  '--oidc-config-url', '--oidc-client-id', '--state-dir',
]);

export interface SecretManagerOptions {
  io?: CliIo;
  /** Environment read for settings, the ID token and the seed file (tests pass their own). */
  env?: NodeJS.ProcessEnv;
  /** Overrides the stderr JSON logger (tests capture it). */
  logger?: Logger;
  fetch?: typeof fetch;
}

const HELP_AFTER = `
Where the caller's IdP token comes from (OIDC/JWT store auth, also tried first by --store-auth auto):
  --id-token-file FILE, else env TOOLGRAPH_ID_TOKEN_FILE (a file holding the JWT),
  else env TOOLGRAPH_ID_TOKEN (the JWT itself), else the session of \`secret-manager login\`
  (refreshed when it expires). Never pass a token as a command-line argument.

secret-manager login signs in by the device flow (RFC 8628) at OIDC_CONFIG_URL with OIDC_CLIENT_ID
(and OIDC_CLIENT_SECRET from env or config.json): open the URL it prints in any browser, enter the
code; the session is kept in {state_dir}/tokens/secret-manager.json (mode 0600). Give --audience with
the audience the store's JWT role is bound to.

The in-memory backend (--backend inmemory, the default) starts empty in every process; seed it with
--secrets-file FILE or env TOOLGRAPH_SECRETS_FILE: a JSON object of key -> string or object.

Other store settings come from env or config.json: SECRETS_STORE_URL, SECRETS_STORE_MOUNT, STORE_TOKEN,
STORE_ROLE_ID, STORE_SECRET_ID, STORE_ORCH_SA_TOKEN_PATH. See docs/secrets.md.

Examples:
  SECRETS_BACKEND=store STORE_TOKEN=... secret-manager get team/db --field password
  secret-manager --backend store --store-auth oidc --id-token-file ~/.cache/idp.jwt get users/alice/api`;

function readTokenFile(path: string, source: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `${source} ${path}: expected a readable file holding the IdP token, got ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (text === '') throw new ToolgraphError('TG_CONFIG_INVALID', `${source} ${path}: expected the IdP token, got an empty file`);
  return text;
}

/** The OAuth client of the device sign-in and its refreshes: OIDC_CONFIG_URL with OIDC_CLIENT_ID. */
async function idpClient(values: ResolvedValues) {
  const { oauthConfiguration, providerServer } = await import('../../auth/index.ts');
  if (values.oidcConfigUrl === undefined || values.oidcClientId === undefined) {
    throw new ToolgraphError('TG_CONFIG_INVALID', 'signing in by the device flow needs the IdP and the client: set OIDC_CONFIG_URL (--oidc-config-url) and OIDC_CLIENT_ID (--oidc-client-id), and OIDC_CLIENT_SECRET for a confidential client', { details: { setting: values.oidcConfigUrl === undefined ? 'OIDC_CONFIG_URL' : 'OIDC_CLIENT_ID' } });
  }
  return oauthConfiguration(await providerServer({ configUrl: values.oidcConfigUrl }), { clientId: values.oidcClientId, clientSecret: values.oidcClientSecret });
}

/**
 * The caller's IdP token: flag file, then env file, then env value, then the session of
 * `secret-manager login` (refreshed if it expired); undefined when there is none.
 */
async function userTokenFrom(opts: Record<string, unknown>, env: NodeJS.ProcessEnv, values: ResolvedValues, logger: Logger): Promise<string | undefined> {
  const flagFile = opts['idTokenFile'];
  if (typeof flagFile === 'string') return readTokenFile(flagFile, '--id-token-file');
  const envFile = env['TOOLGRAPH_ID_TOKEN_FILE'];
  if (envFile) return readTokenFile(envFile, 'TOOLGRAPH_ID_TOKEN_FILE');
  const value = env['TOOLGRAPH_ID_TOKEN']?.trim();
  if (value) return value;
  const { StoredTokenSource, TokenSetStore } = await import('../../auth/index.ts');
  const session = new StoredTokenSource({
    store: new TokenSetStore(values.stateDir), agent: SECRET_MANAGER_SESSION, client: () => idpClient(values),
    signInHint: 'secret-manager login', logger,
  });
  return (await session.current())?.accessToken;
}

function render(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function pickField(key: string, value: SecretValue, field: string): unknown {
  if (typeof value === 'string') {
    throw new ToolgraphError('TG_SECRET_NOT_FOUND', `--field ${field}: expected secret ${JSON.stringify(key)} to be an object, got a string (print it without --field)`, { details: { key } });
  }
  if (!Object.hasOwn(value, field)) {
    // Field names are not secret; their values are, so only names are listed.
    throw new ToolgraphError('TG_SECRET_NOT_FOUND', `secret ${JSON.stringify(key)} has no field ${JSON.stringify(field)}; its fields are ${Object.keys(value).map((k) => JSON.stringify(k)).join(', ') || '(none)'}`, { details: { key, field } });
  }
  return value[field];
}

/** Builds the `secret-manager` program. The secrets backends, the logger and the sign-in load only when a command runs. */
function createSecretManagerProgram(options: SecretManagerOptions = {}): Command {
  const io = options.io ?? processIo;
  const env = options.env ?? process.env;
  const program = new Command('secret-manager')
    .description('Read secrets from the configured backend: in-memory, or a Vault-compatible store (KV v2)')
    .version(TOOLGRAPH_VERSION)
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride()
    .option('--id-token-file <file>', 'file holding the caller\'s IdP token (JWT) for OIDC/JWT store auth (env TOOLGRAPH_ID_TOKEN_FILE; or TOOLGRAPH_ID_TOKEN)')
    .option('--secrets-file <file>', 'seed the in-memory backend from this JSON object of key -> value (env TOOLGRAPH_SECRETS_FILE)');
  const resolveFrom = addSettingOptions(program);
  for (const option of program.options) {
    if (!SHOWN_FLAGS.has(option.long ?? '')) option.hideHelp();
  }
  program.addHelpText('after', HELP_AFTER);

  program
    .command('get')
    .argument('<key>', 'secret key, "/"-separated (read at {store_mount}/data/{path_prefix}/{key})')
    .option('--field <name>', 'print only this field of the secret (strings raw, anything else as JSON)')
    .description('Print one secret: a string raw, an object as JSON')
    .action(async (key: string, getOpts: Record<string, unknown>, command: Command) => {
      const opts = command.optsWithGlobals<Record<string, unknown>>();
      const config = resolveFrom(opts, env);
      const values = config.values;
      const [{ createLogger }, { createSecretsBackend, readSecretsSeedFile }] = await Promise.all([import('../../log/index.ts'), import('../../secrets/index.ts')]);
      const logger = options.logger ?? createLogger({
        name: 'secret-manager',
        // A CLI prints its answer on stdout; logs go to stderr and say little unless asked.
        level: config.sources.logLevel === 'default' ? 'warn' : values.logLevel,
        destination: process.stderr,
      });
      const seedFile = (opts['secretsFile'] as string | undefined) ?? (env['TOOLGRAPH_SECRETS_FILE'] || undefined);
      const backend = createSecretsBackend(values, {
        logger,
        fetch: options.fetch,
        seed: seedFile === undefined ? {} : readSecretsSeedFile(seedFile),
        seedHint: 'it starts empty in every process; seed it with --secrets-file FILE or TOOLGRAPH_SECRETS_FILE, or use --backend store',
      });
      const context: SecretsContext = {};
      const userToken = values.secretsBackend === 'store' ? await userTokenFrom(opts, env, values, logger) : undefined;
      if (userToken !== undefined) context.userToken = userToken;
      const value = await backend.get(key, context);
      const field = getOpts['field'];
      io.out(render(typeof field === 'string' ? pickField(key, value, field) : value));
    });
  program
    .command('login')
    .option('--audience <uri>', 'the audience of the token (RFC 8707 resource): what the store\'s JWT role is bound to')
    .option('--scope <scopes>', 'space-separated scopes to ask for', 'openid offline_access')
    .description('Sign in by the device flow for OIDC/JWT store auth; later `get`s use the session')
    .action(async (loginOpts: Record<string, unknown>, command: Command) => {
      const { values } = resolveFrom(command.optsWithGlobals<Record<string, unknown>>(), env);
      const { TokenSetStore, signInWithDeviceFlow } = await import('../../auth/index.ts');
      const set = await signInWithDeviceFlow(await idpClient(values), {
        agent: SECRET_MANAGER_SESSION,
        scopes: String(loginOpts['scope']).split(' ').filter(Boolean),
        resource: loginOpts['audience'] as string | undefined,
        onPrompt: (prompt) => printDevicePrompt(io, 'secret-manager', prompt),
      });
      printSignedIn(io, 'secret-manager', set, await new TokenSetStore(values.stateDir).save(set));
    });
  pointToHelp(program);
  return program;
}

/** Runs `secret-manager`; returns the exit code. Errors print as `secret-manager: CODE: message`. */
export function runSecretManager(argv: readonly string[], options: SecretManagerOptions = {}): Promise<number> {
  const io = options.io ?? processIo;
  return runCli(createSecretManagerProgram({ ...options, io }), argv, io, (error) =>
    error.code === 'TG_NO_USER_TOKEN'
      ? 'OIDC/JWT store auth needs the caller\'s IdP token: give --id-token-file FILE, TOOLGRAPH_ID_TOKEN_FILE or TOOLGRAPH_ID_TOKEN, or sign in with `secret-manager login`'
      : undefined);
}
