import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signEnvelope } from '../../src/graph/carrier/index.ts';
import { generateSigner } from '../graph/carrier/carrier-fixture.ts';
import { ensureDist } from './support/dist.ts';
import { startNginx, type RunningNginx } from './support/nginx.ts';
import { replicaSuite, testDatabaseUrl } from './support/prerequisites.ts';
import { freePort, freshSchema, Replica } from './support/replicas.ts';
import { TimedSse } from './support/timed-sse.ts';

const suite = replicaSuite('The replica suite carrier-and-writes (two replicas over PostgreSQL behind nginx, a TLS carrier)', { postgres: true, nginx: true, openssl: true });

/**
 * Two `toolgraph serve` replicas (dist/) over one PostgreSQL schema, each with its subscription
 * carrier; nginx in front as the round-robin load balancer of the main ports and, for replica B's
 * carrier, as the TLS reverse proxy docs/carrier.md prescribes (its server block verbatim, with a
 * self-signed certificate this test makes).
 */
let nginx: RunningNginx;
let lb: string;
let tls: string;
let ca: string;
let a: Replica;
let b: Replica;
let carrierA: string;
let carrierB: string;
let signer: CryptoKey;
let dropSchema: () => Promise<void> = async () => undefined;
const dir = mkdtempSync(join(tmpdir(), 'tg-replicas-carrier-'));

const ORGS = 'subscription { Organization(first: 1) { id } }';

async function envelope(query: string, options: { id?: bigint; nonce?: string } = {}) {
  return signEnvelope({ key: signer, alg: 'EdDSA', kid: 'signer-1', graph: 'demo', query, subject: 'replica-test', scopes: ['kg:read'], ...options });
}

async function dispatch(origin: string, query: string): Promise<Response> {
  return fetch(`${origin}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query } } }) });
}

beforeAll(async () => {
  const script = await ensureDist();
  const generated = await generateSigner();
  signer = generated.privateKey;
  writeFileSync(join(dir, 'signers.json'), JSON.stringify(generated.jwks));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'carrier.key'), '-out', join(dir, 'carrier.pem')], { stdio: 'pipe' });
  ca = readFileSync(join(dir, 'carrier.pem'), 'utf8');
  const schema = await freshSchema();
  dropSchema = schema.drop;
  const [lbPort, tlsPort, portA, portB, cportA, cportB] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  lb = `http://127.0.0.1:${lbPort}`;
  tls = `https://127.0.0.1:${tlsPort}`;
  carrierA = `http://127.0.0.1:${cportA}`;
  carrierB = `http://127.0.0.1:${cportB}`;
  const env = (carrierPort: number) => ({
    TOOLGRAPH_PUBLIC_URL: lb, TOOLGRAPH_PERSISTENCE: 'postgres', DATABASE_URL: testDatabaseUrl(), TOOLGRAPH_DATABASE_SCHEMA: schema.name,
    SERVICE_GRAPHQL_ADDR: `127.0.0.1:${carrierPort}`, SERVICE_GRAPHQL_SIGNER_JWKS: join(dir, 'signers.json'), LOG_LEVEL: 'info', TOOLGRAPH_SHUTDOWN_GRACE_SECS: '1',
  });
  a = new Replica('replica-a', script, portA!, env(cportA!));
  b = new Replica('replica-b', script, portB!, env(cportB!));
  await a.start();
  await b.start();
  nginx = await startNginx((prefix) => `
  log_format replicas '$request_method $uri $status $upstream_addr';
  upstream toolgraph {
    server 127.0.0.1:${portA} max_fails=1 fail_timeout=2s;
    server 127.0.0.1:${portB} max_fails=1 fail_timeout=2s;
  }
  server {
    listen 127.0.0.1:${lbPort};
    access_log ${prefix}/replicas.log replicas;
    location / {
      proxy_pass http://toolgraph;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Connection "";
      add_header X-Upstream $upstream_addr always;
    }
  }

  # docs/carrier.md, "Behind a TLS reverse proxy", with this test's certificate, port and log path.
  log_format carrier '$remote_addr [$time_local] "$request_method $uri" $status $body_bytes_sent $request_time';
  server {
    listen 127.0.0.1:${tlsPort} ssl;
    server_name localhost;
    ssl_certificate     ${dir}/carrier.pem;
    ssl_certificate_key ${dir}/carrier.key;
    large_client_header_buffers 4 256k;

    location = /graphql/subscribe {
        access_log ${prefix}/carrier.log carrier;
        proxy_pass http://127.0.0.1:${cportB};
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header Authorization $http_authorization;
        proxy_set_header X-Service-Request-Id $http_x_service_request_id;
        proxy_set_header Connection "";
        proxy_buffering off;
        proxy_cache off;
        proxy_read_timeout 3700s;
    }
  }`, [lbPort!, tlsPort!]);
}, 240_000);

afterAll(async () => {
  // The replicas' logs, for a failure's post-mortem (CI keeps .tmp/).
  mkdirSync('.tmp', { recursive: true });
  for (const replica of [a, b]) if (replica) writeFileSync(`.tmp/carrier-and-writes.${replica.name}.log`, replica.lines.join('\n'));
  await nginx?.stop();
  await Promise.all([a, b].map((r) => r?.dispose()));
  await dropSchema();
  rmSync(dir, { recursive: true, force: true });
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

suite('the carrier on every replica shares one ledger', () => {
  it('an envelope consumed on replica A\'s carrier is refused by replica B\'s, directly and through the TLS proxy', async () => {
    const signed = await envelope(ORGS);
    const first = new TimedSse(`${carrierA}${signed.path}`, { ...signed.headers });
    await first.opened;
    expect(first.status).toBe(200);
    await first.until(() => first.frames.length >= 1, 'the first frame');
    const replayed = await new TimedSse(`${carrierB}${signed.path}`, { ...signed.headers }).refusal();
    expect(replayed.status).toBe(401);
    expect(JSON.parse(replayed.body)).toMatchObject({ error: { code: 'TG_NONCE_REPLAYED' } });
    const throughTls = await new TimedSse(`${tls}${signed.path}`, { ...signed.headers }, ca).refusal();
    expect(throughTls.status).toBe(401);
    expect(JSON.parse(throughTls.body)).toMatchObject({ error: { code: 'TG_NONCE_REPLAYED' } });
    // A fresh nonce with a request id already used (by this subject) is refused on the other replica too.
    const sameId = await envelope(ORGS, { id: BigInt(signed.requestId) });
    const reused = await new TimedSse(`${carrierB}${sameId.path}`, { ...sameId.headers }).refusal();
    expect(reused.status).toBe(401);
    expect(JSON.parse(reused.body)).toMatchObject({ error: { code: 'TG_REQUEST_ID_REPLAYED' } });
    first.close();
  });

  it('of two replicas racing on one fresh envelope, exactly one admits it', async () => {
    for (let round = 0; round < 5; round++) {
      const signed = await envelope(ORGS);
      const both = [new TimedSse(`${carrierA}${signed.path}`, { ...signed.headers }), new TimedSse(`${carrierB}${signed.path}`, { ...signed.headers })];
      await Promise.all(both.map((s) => s.opened));
      expect(both.map((s) => s.status).sort()).toEqual([200, 401]);
      for (const s of both) s.close();
    }
  });
});

suite('subscriptions follow writes committed on other replicas', () => {
  it('a subscriber on replica B, through the TLS proxy, gets the frame of every write committed on replica A (delay measured over 200 writes)', async () => {
    expect((await dispatch(a.origin, "CREATE (p:Probe {id: 'probe', n: 0}) RETURN p.id")).status).toBe(200);
    const query = 'subscription { Probe(first: 1) { id n } }';
    let sse: TimedSse | undefined;
    // Replica B learns the new label from the followed write; until then its schema has no Probe root.
    await expect.poll(async () => {
      sse?.close();
      const signed = await envelope(query);
      sse = new TimedSse(`${tls}${signed.path}`, { ...signed.headers }, ca);
      await sse.opened;
      return sse.status;
    }, { interval: 100, timeout: 15_000 }).toBe(200);
    const stream = sse!;
    const probeValue = (frame: { data: string }) => (JSON.parse(frame.data) as { data: { Probe: { n: number }[] } }).data.Probe[0]?.n;
    await stream.until(() => stream.frames.some((f) => probeValue(f) === 0), 'the initial frame');
    const delays: number[] = [];
    for (let i = 1; i <= 200; i++) {
      const response = await dispatch(a.origin, `MATCH (p:Probe {id: 'probe'}) SET p.n = ${i} RETURN p.n`);
      const acknowledged = performance.now();
      expect(response.status).toBe(200);
      await response.body?.cancel();
      await stream.until(() => stream.frames.some((f) => probeValue(f) === i), `the frame of write ${i}`);
      const frame = stream.frames.find((f) => probeValue(f) === i)!;
      delays.push(Math.max(0, frame.at - acknowledged));
    }
    const sorted = [...delays].sort((x, y) => x - y);
    console.log(`cross-replica subscription delay (write acknowledged on A -> frame on B through the TLS proxy), 200 writes: p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`);
    expect(delays).toHaveLength(200);
    stream.close();
    // The proxy kept the query string (graph name, subscription text) out of its log, as the docs require.
    await expect.poll(() => nginx.log('carrier.log'), { timeout: 5_000 }).toContain('"GET /graphql/subscribe" 200');
    const log = nginx.log('carrier.log');
    expect(log).not.toContain('Probe');
    expect(log).not.toContain('?');
  }, 120_000);
});

suite('kill -9 of a replica under writes', () => {
  it('loses no acknowledged write: every one is read back from the survivor and from the crashed replica once restarted', async () => {
    const acknowledged: string[] = [];
    const outcomes = new Map<string, number>();
    let next = 0;
    let killed = false;
    const TOTAL = 120;
    const writer = async () => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        if (i === 40 && !killed) {
          killed = true;
          await a.stop('SIGKILL');
        }
        const id = `w-${i}`;
        // /dispatch answers errors in its body; a version conflict (the replica had not followed the
        // other's last write yet) stored nothing and is retried. Only a result is an acknowledgement.
        for (let attempt = 0; attempt < 20; attempt++) {
          const response = await dispatch(lb, `CREATE (w:Write {id: '${id}'}) RETURN w.id`).catch(() => undefined);
          const body = response === undefined ? undefined : await response.text().then((text) => JSON.parse(text) as { result?: unknown; error?: { code: string } }).catch(() => undefined);
          const outcome = response === undefined ? 'no answer' : body?.result !== undefined ? 'stored' : body?.error?.code ?? `HTTP ${response.status}`;
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          if (outcome === 'stored') acknowledged.push(id);
          if (outcome !== 'TG_VERSION_CONFLICT') break;
        }
      }
    };
    await Promise.all([writer(), writer(), writer()]);
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThan(TOTAL / 2);
    const ids = async (origin: string) => {
      const response = await dispatch(origin, 'MATCH (w:Write) RETURN w.id AS id');
      expect(response.status).toBe(200);
      return new Set(((await response.json()) as { result: { rows: [string][] } }).result.rows.map(([id]) => id));
    };
    const survivor = await ids(b.origin);
    expect(acknowledged.filter((id) => !survivor.has(id))).toEqual([]);
    await a.start();
    const recovered = await ids(a.origin);
    expect(acknowledged.filter((id) => !recovered.has(id))).toEqual([]);
    console.log(`kill -9 under writes: ${acknowledged.length}/${TOTAL} acknowledged, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`);
  }, 120_000);
});
