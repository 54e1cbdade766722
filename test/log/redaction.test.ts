import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type HttpService, type RunningHost } from '../../src/http/index.ts';
import { scrubString } from '../../src/log/index.ts';
import { captureLogger } from '../support/capture-logger.ts';
import { ToolgraphError } from '../../src/errors/index.ts';


// A JWT-shaped token built at run time, so no credential-looking literal lives in the repo.
const token = ['eyJhbGciOiJSUzI1NiJ9', Buffer.from(JSON.stringify({ sub: 'alice', scope: 'kg:read' })).toString('base64url'), 'c2lnbmF0dXJlLWJ5dGVz'].join('.');

let host: RunningHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('logs never contain bearer tokens', () => {
  it('scrubs bearer values and JWTs from free text', () => {
    expect(scrubString(`Authorization: Bearer ${token}`)).toBe('Authorization: Bearer [REDACTED]');
    expect(scrubString(`bearer opaque-token_123`)).toBe('bearer [REDACTED]');
    expect(scrubString(`token=${token};`)).toBe('token=[REDACTED];');
    expect(scrubString('nothing to hide')).toBe('nothing to hide');
  });

  it('a request carrying a bearer token, logged every way a handler might, leaves no trace of it', async () => {
    const { lines, logger } = captureLogger();
    const service: HttpService = {
      name: 'echo',
      prefixes: ['/echo'],
      entryPath: '/echo',
      handle(req) {
        logger.info({ headers: req.headers }, 'request headers');
        logger.info({ req: { headers: req.headers } }, 'nested request');
        logger.info({ authorization: req.headers.authorization, token: token, access_token: token }, 'fields');
        logger.warn(`header was ${req.headers.authorization ?? ''}`);
        logger.error({ err: new Error(`upstream refused ${token}`), details: { note: `Bearer ${token}` } }, 'failure');
        throw new ToolgraphError('TG_FORBIDDEN', 'no');
      },
    };
    host = await startHost({ services: [service], logger, host: '127.0.0.1', port: 0 });
    const response = await fetch(`${host.origin}/echo`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(403);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const output = lines.join('\n');
    expect(output).not.toContain(token);
    expect(output).not.toContain(token.split('.')[1]!);
    expect(output).toContain('[REDACTED]');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
