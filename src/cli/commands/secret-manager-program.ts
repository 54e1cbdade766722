import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { ToolgraphError } from '../../errors/index.ts';
import { createLogger, type Logger } from '../../log/index.ts';
import { createSecretsBackend, readSecretsSeedFile, type SecretValue, type SecretsContext } from '../../secrets/index.ts';
import { processIo, type CliIo } from '../cli-io.ts';
import { runCli } from '../run-cli.ts';
import { addSettingOptions } from '../setting-options.ts';

/** The flags `secret-manager` shows in its help (the spec's five, plus ours); other setting flags stay accepted but hidden. */
const SHOWN_FLAGS: ReadonlySet<string> = new Set([
  '--backend', '--store-auth', '--store-auth-mount', '--store-role', '--store-path-prefix',
  '--id-token-file', '--secrets-file', '--log-level', '--config', '--version',
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
  else env TOOLGRAPH_ID_TOKEN (the JWT itself). Never pass a token as a command-line argument.

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

/** The caller's IdP token: flag file, then env file, then env value; undefined when none is given. */
function userTokenFrom(opts: Record<string, unknown>, env: NodeJS.ProcessEnv): string | undefined {
  const flagFile = opts['idTokenFile'];
  if (typeof flagFile === 'string') return readTokenFile(flagFile, '--id-token-file');
  const envFile = env['TOOLGRAPH_ID_TOKEN_FILE'];
  if (envFile) return readTokenFile(envFile, 'TOOLGRAPH_ID_TOKEN_FILE');
  const value = env['TOOLGRAPH_ID_TOKEN']?.trim();
  return value ? value : undefined;
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

/** Builds the `secret-manager` program. */
export function createSecretManagerProgram(options: SecretManagerOptions = {}): Command {
  const io = options.io ?? processIo;
  const env = options.env ?? process.env;
  const program = new Command('secret-manager')
    .description('Read secrets from the configured backend: in-memory, or a Vault-compatible store (KV v2)')
    .version('0.1.0')
    .showHelpAfterError()
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
      const userToken = values.secretsBackend === 'store' ? userTokenFrom(opts, env) : undefined;
      if (userToken !== undefined) context.userToken = userToken;
      const value = await backend.get(key, context);
      const field = getOpts['field'];
      io.out(render(typeof field === 'string' ? pickField(key, value, field) : value));
    });
  return program;
}

/** Runs `secret-manager`; returns the exit code. Errors print as `secret-manager: CODE: message`. */
export function runSecretManager(argv: readonly string[], options: SecretManagerOptions = {}): Promise<number> {
  const io = options.io ?? processIo;
  return runCli(createSecretManagerProgram({ ...options, io }), argv, io, (error) =>
    error.code === 'TG_NO_USER_TOKEN'
      ? 'OIDC/JWT store auth needs the caller\'s IdP token: give --id-token-file FILE, TOOLGRAPH_ID_TOKEN_FILE or TOOLGRAPH_ID_TOKEN'
      : undefined);
}
