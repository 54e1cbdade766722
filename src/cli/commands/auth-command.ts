import type { Command } from 'commander';
import { DEFAULT_CALLBACK_PORT } from '../../auth/client-flows/constants.ts';
import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { SIGN_IN_SETTINGS } from '../command-settings.ts';
import { withHint } from '../error-hints.ts';
import { addSettingOptions } from '../setting-options.ts';
import { printDevicePrompt, printSignedIn } from '../sign-in-output.ts';

function integerOption(name: string, min: number, max: number): (raw: string) => number {
  return (raw) => {
    const value = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= min && value <= max)) throw new ToolgraphError('TG_CONFIG_INVALID', `${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    return value;
  };
}

const HELP_AFTER = `
The loopback flow (default) listens on 127.0.0.1:${DEFAULT_CALLBACK_PORT} for the provider's redirect. When toolgraph
runs on a remote server, forward that port from the machine with the browser before opening the URL:

  ssh -L ${DEFAULT_CALLBACK_PORT}:127.0.0.1:${DEFAULT_CALLBACK_PORT} user@server

--device signs in by the device flow instead (RFC 8628): nothing listens, any browser anywhere will do.

The provider and client are the agent's own when its configuration names them (provider_config_url or
its endpoints, client_id, client_secret or client_secret_ref, scopes, audience), as toolgraph serve reads
them; else OIDC_CONFIG_URL (--oidc-config-url), or --authorization-endpoint and --token-endpoint, with
OIDC_CLIENT_ID (--oidc-client-id) and OIDC_CLIENT_SECRET from env or config.json.
The token set is stored in {state_dir}/tokens/<agent>.json (mode 0600), where the served agent reads it,
picking up a new sign-in on its next call: an agent with consent operator (e.g. the search agent), a
hybrid agent's device flow, and requests without a caller. With per-caller consent (three-legged,
consent caller) each caller consents at the URL their tool call answers instead. See docs/delegation.md.`;

/** When the provider's discovery document cannot be had, says which settings point at the provider. */
function providerHint(error: unknown): string | undefined {
  if (!isToolgraphError(error) || error.code !== 'TG_OIDC_DISCOVERY_FAILED') return undefined;
  return 'auth login signs in at the identity provider: check OIDC_CONFIG_URL (--oidc-config-url, or config key oidc_config_url) and that the IdP is up, or give its --authorization-endpoint and --token-endpoint';
}

/**
 * `toolgraph auth login <agent>`: signs a downstream agent in, by the three-legged loopback flow or
 * (`--device`) the device flow, and seeds the token set into the agent (its file in the state dir).
 */
export function registerAuthCommand(program: Command, io: CliIo): void {
  const auth = program.command('auth').description(COMMAND_DESCRIPTIONS.auth);
  const login = auth
    .command('login')
    .description('Sign an agent in and store its token set (mode 0600) where its tools read it')
    .argument('<agent>', 'agent name, as the tool server names its agents (lower-case letters, digits, "_")')
    .option('--device', 'use the device flow (RFC 8628) instead of the loopback redirect')
    .option('--scope <scopes>', 'space-separated scopes to ask for (default: the agent\'s scopes, else openid offline_access)')
    .option('--audience <uri>', 'RFC 8707 resource indicator: the API the tokens are for')
    .option('--authorization-endpoint <url>', 'the provider\'s authorization endpoint (instead of discovery)')
    .option('--token-endpoint <url>', 'the provider\'s token endpoint (instead of discovery)')
    .option('--callback-port <port>', 'loopback port for the redirect (0 picks a free one)', integerOption('--callback-port', 0, 65535), DEFAULT_CALLBACK_PORT)
    .option('--timeout <seconds>', 'how long to wait for the browser (loopback flow)', integerOption('--timeout', 1, 3600), 300);
  login.addHelpText('after', HELP_AFTER);
  // The client secret is accepted as a flag like everywhere, but not advertised: argument lists are readable by every user of the machine.
  const resolveFrom = addSettingOptions(login, { names: SIGN_IN_SETTINGS, hidden: ['oidcClientSecret'] });
  login.action(async (agent: string, opts: Record<string, unknown>) => {
    const [{ TokenSetStore, oauthConfiguration, signInWithDeviceFlow, signInWithLoopback }, { createSecretsBackend }, { signInTargetOf }] = await Promise.all([
      import('../../auth/index.ts'), import('../../secrets/index.ts'), import('../../tools/index.ts'),
    ]);
    const { values } = resolveFrom(opts);
    const target = await withHint(() => signInTargetOf(values, agent, {
      scopes: opts['scope'] as string | undefined, audience: opts['audience'] as string | undefined,
      authorizationEndpoint: opts['authorizationEndpoint'] as string | undefined, tokenEndpoint: opts['tokenEndpoint'] as string | undefined,
    }, () => createSecretsBackend(values)), providerHint);
    const config = oauthConfiguration(target.server, target.client);
    const { scopes, resource } = target;
    const set = opts['device']
      ? await signInWithDeviceFlow(config, { agent, scopes, resource, onPrompt: (prompt) => printDevicePrompt(io, `agent ${agent}`, prompt) })
      : await signInWithLoopback(config, {
        agent, scopes, resource, port: opts['callbackPort'] as number, timeoutMs: (opts['timeout'] as number) * 1000,
        onAuthorizationUrl: (url, redirectUri) => {
          const port = new URL(redirectUri).port;
          io.out(`Open this URL in a browser to sign agent ${agent} in:`);
          io.out('');
          io.out(`  ${url}`);
          io.out('');
          io.out(`The browser is sent back to ${redirectUri}. If this machine is remote, forward that port from the machine running the browser first:`);
          io.out('');
          io.out(`  ssh -L ${port}:127.0.0.1:${port} user@server`);
          io.out('');
          io.out(`Waiting up to ${opts['timeout'] as number} s for the sign-in...`);
        },
      });
    const path = await new TokenSetStore(values.stateDir).save(set);
    printSignedIn(io, `agent ${agent}`, set, path);
  });
}
