import { describe, expect, it } from 'vitest';
import { subscribePath } from '../../../src/graph/carrier/index.ts';
import { captureLogger } from '../../support/capture-logger.ts';
import { CARRIER_POLICY, GRAPH, startFixture } from './carrier-fixture.ts';

describe('carrier privacy', () => {
  it('never logs bearer tokens, envelopes, nonces, graph names or subscription documents, in accepted or refused sessions', async () => {
    const { lines, logger } = captureLogger('trace');
    const f = await startFixture({ logger, maxSessionSecs: 1, keepaliveMs: 100 });
    const secrets: string[] = [GRAPH, 'qqSecretAlias', 'subjectSecret77', 'urlTokenSecret123', 'SecretLabelZz'];
    const query = 'subscription { qqSecretAlias: Person(first: 5) { id name KNOWS { id } } }';
    const sign = async (overrides: Parameters<typeof f.sign>[0] = {}) => {
      const signed = await f.sign({ query, subject: 'subjectSecret77', scopes: ['kg:read'], ...overrides });
      const jws = signed.authorization.slice('Bearer tgsse1.'.length);
      secrets.push(signed.authorization, jws, ...jws.split('.'), JSON.parse(Buffer.from(jws.split('.')[1]!, 'base64url').toString()).nonce as string);
      if (overrides.query) secrets.push(overrides.query);
      return signed;
    };
    secrets.push(query, encodeURIComponent(query));

    // Accepted: initial frame, an update, a keepalive, then the session expires.
    const accepted = await f.subscribe(await sign());
    await accepted.until((c) => c.events.length === 1, 'initial');
    await f.commit({ op: 'updateNode', id: 'p01', set: { name: 'changed' } });
    await accepted.until((c) => c.events.length === 2, 'update');
    // Accepted, then revoked: a policy edit drops the group that let it read.
    const revoked = await f.subscribe(await sign({ subject: 'revokedSecret88', groups: ['purple'] }));
    secrets.push('revokedSecret88');
    await revoked.until((c) => c.events.length >= 1, 'initial');
    await f.setPolicy({ ...CARRIER_POLICY, read: CARRIER_POLICY.read.filter((m) => !('group' in m && m.group === 'purple')) });
    await revoked.done;
    // Accepted, then the executor fails with internals in its message.
    const failing = await f.subscribe(await sign({ query: 'subscription { Person(first: 1) { id } }' }));
    await failing.until((c) => c.events.length === 1, 'initial');
    f.executor.failQuery = 'subscription { Person(first: 1) { id } }';
    f.executor.failWith = new Error(`boom in ${GRAPH} running qqSecretAlias`);
    await f.commit({ op: 'updateNode', id: 'p01', set: { name: 'again' } });
    await failing.done;
    f.executor.failWith = undefined;
    expect(JSON.parse(failing.events.at(-1)!.data)).toMatchObject({ reason: 'evaluation-failed', error: { code: 'TG_INTERNAL' } });

    // Refused, every way.
    const valid = await sign();
    const [h, p, s] = valid.authorization.slice('Bearer tgsse1.'.length).split('.');
    const refusals = [
      f.subscribe(valid, { headers: { authorization: `Bearer tgsse1.${h}.${p}x.${s}` } }),
      f.subscribe(valid, { path: `${valid.path}&access_token=urlTokenSecret123` }),
      f.subscribe(valid, { method: 'OPTIONS' }),
      f.subscribe(valid, { path: `/elsewhere?graph=${GRAPH}` }),
      f.subscribe(await sign({ scopes: ['query:cypher'] })),
      f.subscribe(await sign({ groups: ['green'] })),
      f.subscribe(await sign({ query: `subscription { qqSecretAlias: Person(first: 1) { id } } # ${'pad'.repeat(11000)}` })),
      f.subscribe(await sign({ query: 'subscription { qqSecretAlias: Person { id } }' })),
      f.subscribe(await sign({ query: 'subscription { SecretLabelZz(first: 1) { id } }' })),
      f.subscribe(valid, { path: subscribePath(GRAPH, `${query} `) }),
      f.subscribe(valid),
    ];
    const refused = await Promise.all(refusals);
    expect(refused.map((c) => c.status)).toEqual([401, 400, 405, 404, 403, 403, 400, 400, 400, 401, 200]);
    const replay = await f.subscribe(valid);
    expect(replay.status).toBe(401);

    await accepted.done;
    expect(JSON.parse(accepted.events.at(-1)!.data)).toEqual({ reason: 'session-expired' });
    await f.close();

    expect(lines.length).toBeGreaterThan(10);
    expect(lines.some((l) => l.includes('carrier refused a handshake'))).toBe(true);
    expect(lines.some((l) => l.includes('carrier session opened'))).toBe(true);
    expect(lines.some((l) => l.includes('carrier evaluation failed'))).toBe(true);
    const leaks = secrets.filter((secret) => secret.length >= 6).flatMap((secret) => lines.filter((line) => line.includes(secret)).map((line) => ({ secret: secret.slice(0, 40), line })));
    expect(leaks).toEqual([]);
  });
});
