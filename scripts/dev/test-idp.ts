// A local OpenID provider for trying the auth types by hand: npm run dev:idp [-- --audience AUD] [--public-url URL] [--write-env FILE]
// It is the test IdP of test/support/idp.ts (oidc-provider on 127.0.0.1, JWT access tokens, an
// automated login and consent for interactive flows). It prints, as `export X=...` lines, every
// value the README's and docs' auth sessions use: the settings to start toolgraph with (the IdP's
// discovery URL, the audience), a confidential client for AUTH_TYPE=oidc-proxy/oauth-proxy whose
// redirect URI is {URL}/oauth/callback (also allowed the token exchange of ENABLE_DELEGATION), the
// secrets of its two other clients (device flow and three-legged sign-ins of `toolgraph auth
// login`), and user tokens for AUD valid eight hours. `--write-env FILE` also writes them to FILE
// (mode 0600) for `. FILE`. npm runs it on the pinned Node 22 (node_modules/.bin/node), as
// `exec node scripts/dev/test-idp.ts --`: the `--` ends Node's own options, because Node 22 takes an
// `--env-file` anywhere on its command line, after the script name too, as its own flag (and stops
// when the file is missing); the old spelling `--env-file FILE` is so still taken, as --write-env.
// `exec` lets a SIGTERM to the npm process reach this one. Runs until Ctrl-C. For development only.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startIdp, TOKEN_EXCHANGE_GRANT } from '../../test/support/idp.ts';

// npm appends the caller's arguments after the script's own `--` (see above).
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();
const { values } = parseArgs({
  args,
  options: {
    audience: { type: 'string', default: 'http://127.0.0.1:4000' },
    'public-url': { type: 'string', default: 'http://127.0.0.1:4000' },
    // The name the README used before: the proxy client's redirect URI itself.
    'proxy-redirect': { type: 'string' },
    'write-env': { type: 'string' },
    // The name the docs used before; Node itself takes it unless it comes after `--`.
    'env-file': { type: 'string' },
  },
});
const envFile = values['write-env'] ?? values['env-file'];
const audience = values.audience;
const redirect = values['proxy-redirect'] ?? `${values['public-url'].replace(/\/$/, '')}/oauth/callback`;
const idp = await startIdp({ defaultAudience: audience, accessTokenTtl: 8 * 3600 });

const proxySecret = `proxy-${crypto.randomUUID()}`;
await idp.upsertClient({
  client_id: 'toolgraph-proxy',
  client_secret: proxySecret,
  // The proxy's sign-ins, and RFC 8693 exchanges when the tool server delegates (same client).
  grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT],
  response_types: ['code'],
  redirect_uris: [redirect],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: 'openid email offline_access api kg:read kg:write kg:admin query:graphql',
});

/** Each value, with what it is; the users' tokens are the ones the README's sessions send. */
const exports: [name: string, value: string, what: string][] = [
  ['OIDC_CONFIG_URL', idp.discoveryUrl, "the IdP's discovery document"],
  ['TOKEN_AUDIENCE', audience, "the tokens' audience (toolgraph's public URL)"],
  ['OIDC_CLIENT_ID', 'toolgraph-proxy', `the proxy's client (oidc-proxy, oauth-proxy, delegation); redirect URI ${redirect}`],
  ['OIDC_CLIENT_SECRET', proxySecret, "the proxy client's secret"],
  ['TEST_CLIENT_ID', idp.clientId, 'a client for the device flow (toolgraph auth login --device)'],
  ['TEST_CLIENT_SECRET', idp.clientSecret, "that client's secret"],
  ['VENDOR_APP_CLIENT_ID', idp.threeLeggedClient.clientId, 'a native client for three-legged sign-ins (toolgraph auth login)'],
  ['VENDOR_APP_CLIENT_SECRET', idp.threeLeggedClient.clientSecret, "that client's secret"],
  ['ADMIN', await idp.mintToken({ sub: 'admin', scope: 'kg:admin', audience }), 'user admin, scope kg:admin'],
  ['READER', await idp.mintToken({ sub: 'reader', scope: 'kg:read', audience, groups: ['analysts', 'person-001', 'person-003'] }), 'user reader, scope kg:read, groups analysts person-001 person-003'],
  ['OTHER', await idp.mintToken({ sub: 'other', scope: 'kg:read', audience, groups: ['sales'] }), 'user other, scope kg:read, group sales'],
  ['GRAPHQL_ONLY', await idp.mintToken({ sub: 'graphql-only', scope: 'query:graphql', audience }), 'user graphql-only, scope query:graphql only'],
];
const text = exports.map(([name, value, what]) => `# ${what}\nexport ${name}=${value}\n`).join('');
if (envFile) writeFileSync(envFile, text, { mode: 0o600 });
process.stdout.write(text);
process.stderr.write('test IdP running; Ctrl-C stops it (the tokens are valid 8 hours)\n');
process.once('SIGINT', () => void idp.close().then(() => process.exit(0)));
process.once('SIGTERM', () => void idp.close().then(() => process.exit(0)));
