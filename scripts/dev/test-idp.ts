// A local OpenID provider for trying the auth types by hand: node scripts/dev/test-idp.ts [--proxy-redirect URL] [--audience AUD]
// It is the test IdP of test/support/idp.ts (oidc-provider on 127.0.0.1, JWT access tokens, an
// automated login and consent for interactive flows). It prints the settings to start toolgraph
// with, a client-credentials token for AUD (default http://127.0.0.1:4000) and, with
// --proxy-redirect, a confidential client for AUTH_TYPE=oidc-proxy whose redirect URI is URL
// ({TOOLGRAPH_PUBLIC_URL}/oauth/callback), also allowed the token exchange (ENABLE_DELEGATION).
// Runs until Ctrl-C. For development only.
import { parseArgs } from 'node:util';
import { startIdp, TOKEN_EXCHANGE_GRANT } from '../../test/support/idp.ts';

const { values } = parseArgs({ options: { 'proxy-redirect': { type: 'string' }, audience: { type: 'string', default: 'http://127.0.0.1:4000' } } });
const idp = await startIdp({ defaultAudience: values.audience });
const lines = [
  `OIDC_CONFIG_URL=${idp.discoveryUrl}`,
  `READER=${await idp.mintToken({ scope: 'kg:read', audience: values.audience })}`,
];
if (values['proxy-redirect']) {
  const secret = `proxy-${crypto.randomUUID()}`;
  const adapter = (idp.provider as unknown as { Client: { adapter: { upsert(id: string, payload: Record<string, unknown>): Promise<void> } } }).Client.adapter;
  await adapter.upsert('toolgraph-proxy', {
    client_id: 'toolgraph-proxy',
    client_secret: secret,
    // The proxy's sign-ins, and RFC 8693 exchanges when the tool server delegates (same client).
    grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT],
    response_types: ['code'],
    redirect_uris: [values['proxy-redirect']],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'openid email offline_access api kg:read kg:write kg:admin query:graphql',
  });
  lines.push('OIDC_CLIENT_ID=toolgraph-proxy', `OIDC_CLIENT_SECRET=${secret}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
process.once('SIGINT', () => void idp.close().then(() => process.exit(0)));
process.once('SIGTERM', () => void idp.close().then(() => process.exit(0)));
