import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

/**
 * A downstream API on 127.0.0.1, as a tool would call it. It accepts:
 * - a bearer JWT from the test IdP whose audience is **its own** (`audience`), verified with jose
 *   against the IdP's JWKS (issuer, audience, exp): so a caller's token issued for toolgraph is
 *   refused, and only a delegated (or a properly scoped) token gets through;
 * - the API-key pair it was given, as `Authorization: Basic base64(public:secret)` or in the
 *   `x-api-key` / `x-api-secret` headers (identity passthrough).
 * `GET /whoami` answers who the request authenticated as. Every call is recorded, with the bearer
 * token as received, so a test can prove which token reached the API.
 */
export interface DownstreamCall {
  via: 'bearer' | 'api-key' | 'none';
  status: number;
  /** The bearer token as received (test peer only; the code under test never logs one). */
  bearer?: string;
  claims?: JWTPayload;
  reason?: string;
}

export interface DownstreamApi {
  url: string;
  audience: string;
  calls: DownstreamCall[];
  close(): Promise<void>;
}

export interface DownstreamApiOptions {
  audience: string;
  issuer: string;
  jwksUri: string;
  apiKey?: { publicKey: string; secretKey: string };
}

export async function startDownstreamApi(options: DownstreamApiOptions): Promise<DownstreamApi> {
  const jwks = createRemoteJWKSet(new URL(options.jwksUri));
  const calls: DownstreamCall[] = [];
  const answer = (res: import('node:http').ServerResponse, call: DownstreamCall, body: unknown) => {
    calls.push(call);
    res.writeHead(call.status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const authorization = req.headers['authorization'] ?? '';
      const [scheme, value] = authorization.split(' ', 2);
      if (scheme?.toLowerCase() === 'bearer' && value) {
        try {
          const { payload } = await jwtVerify(value, jwks, { issuer: options.issuer, audience: options.audience });
          answer(res, { via: 'bearer', status: 200, bearer: value, claims: payload }, { via: 'bearer', sub: payload.sub, aud: payload.aud, scope: payload['scope'], act: payload['act'] ?? null });
        } catch (error) {
          const reason = (error as { code?: string }).code ?? 'invalid';
          answer(res, { via: 'bearer', status: 401, bearer: value, reason }, { error: 'invalid_token', reason });
        }
        return;
      }
      const key = options.apiKey;
      let pair: [string, string] | undefined;
      if (scheme?.toLowerCase() === 'basic' && value) {
        const decoded = Buffer.from(value, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        pair = [decoded.slice(0, colon), decoded.slice(colon + 1)];
      } else if (typeof req.headers['x-api-key'] === 'string') {
        pair = [req.headers['x-api-key'], String(req.headers['x-api-secret'] ?? '')];
      }
      if (pair && key && pair[0] === key.publicKey && pair[1] === key.secretKey) {
        answer(res, { via: 'api-key', status: 200 }, { via: 'api-key', project: 'downstream-test' });
        return;
      }
      answer(res, { via: pair ? 'api-key' : 'none', status: 401 }, { error: 'unauthorized' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    audience: options.audience,
    calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Calls `GET /whoami` with the headers a resolver returned; answers the status and body. */
export async function whoami(api: DownstreamApi, headers: Readonly<Record<string, string>>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${api.url}/whoami`, { headers: { ...headers } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
