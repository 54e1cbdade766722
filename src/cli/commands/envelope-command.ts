import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ToolgraphError } from '../../errors/index.ts';
import { DEFAULT_ENVELOPE_LIFETIME_SECS } from '../../graph/carrier/constants.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function jsonObject(raw: unknown, flag: string): Record<string, unknown> | null {
  if (raw === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(String(raw));
  } catch (error) {
    throw new ToolgraphError('TG_BAD_REQUEST', `${flag}: expected a JSON object, got invalid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ToolgraphError('TG_BAD_REQUEST', `${flag}: expected a JSON object.`);
  return value as Record<string, unknown>;
}

function integer(raw: unknown, flag: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new ToolgraphError('TG_BAD_REQUEST', `${flag}: expected an integer, got ${JSON.stringify(raw)}.`);
  return value;
}

/**
 * `toolgraph envelope sign` signs one carrier request and prints the two headers to send;
 * `toolgraph envelope keygen` makes a signer key pair (private JWK, public JWKS for the carrier).
 * The signing code loads only when one runs.
 */
export function registerEnvelopeCommand(program: Command, io: CliIo): void {
  const envelope = program.command('envelope').description(COMMAND_DESCRIPTIONS.envelope);

  envelope
    .command('sign')
    .description('Sign one carrier request (fresh id and nonce) and print the Authorization and X-Service-Request-Id headers')
    .requiredOption('--key <file>', 'the signer\'s private key: a private JWK, or a PKCS#8 PEM with --alg')
    .requiredOption('--graph <name>', 'the graph to subscribe to')
    .requiredOption('--query <text>', 'the subscription text, exactly as it will be sent')
    .requiredOption('--subject <subject>', 'the signed subject the session runs as')
    .option('--scope <scope>', 'a signed scope (repeat for more; default query:graphql)', collect, [])
    .option('--group <group>', 'a signed group (repeat for more)', collect, [])
    .option('--variables <json>', 'the subscription variables, a JSON object')
    .option('--id <u64>', 'the request id (default: random)')
    .option('--agent-id <id>', 'the calling agent')
    .option('--ttl <seconds>', `envelope lifetime, 1 to 300 (default ${DEFAULT_ENVELOPE_LIFETIME_SECS})`)
    .option('--alg <alg>', 'the JWS algorithm (default: the JWK\'s alg)')
    .option('--kid <kid>', 'the key id (default: the JWK\'s kid)')
    .option('--json', 'print {headers, path} as JSON instead of header lines')
    .action(async (opts: Record<string, unknown>) => {
      const [{ readSigningKey, signEnvelope }, { parseU64 }] = await Promise.all([import('../../graph/carrier/index.ts'), import('../../graph/dispatch/index.ts')]);
      const key = await readSigningKey(String(opts['key']), {
        ...(typeof opts['alg'] === 'string' ? { alg: opts['alg'] } : {}),
        ...(typeof opts['kid'] === 'string' ? { kid: opts['kid'] } : {}),
      });
      const scopes = opts['scope'] as string[];
      const signed = await signEnvelope({
        key: key.key,
        alg: key.alg,
        ...(key.kid === undefined ? {} : { kid: key.kid }),
        graph: String(opts['graph']),
        query: String(opts['query']),
        variables: jsonObject(opts['variables'], '--variables'),
        ...(opts['id'] === undefined ? {} : { id: parseU64(String(opts['id']), '--id') }),
        ...(typeof opts['agentId'] === 'string' ? { agentId: opts['agentId'] } : {}),
        subject: String(opts['subject']),
        scopes: scopes.length > 0 ? scopes : ['query:graphql'],
        groups: opts['group'] as string[],
        ...(opts['ttl'] === undefined ? {} : { ttlSecs: integer(opts['ttl'], '--ttl') }),
      });
      if (opts['json']) {
        io.out(JSON.stringify({ headers: signed.headers, path: signed.path }, null, 2));
        return;
      }
      io.out(`Authorization: ${signed.authorization}`);
      io.out(`X-Service-Request-Id: ${signed.requestId}`);
    });

  envelope
    .command('keygen')
    .description('Make a signer key pair: the private JWK for the signer, its public key added to a JWKS for SERVICE_GRAPHQL_SIGNER_JWKS')
    .requiredOption('--private <file>', 'where to write the private JWK (mode 0600; refused if it exists)')
    .requiredOption('--jwks <file>', 'the JWKS file to add the public key to (created if missing)')
    .option('--alg <alg>', 'EdDSA (default), ES256, ES384, ES512, RS256, PS256, …', 'EdDSA')
    .option('--kid <kid>', 'the key id (default: the key\'s RFC 7638 thumbprint)')
    .action(async (opts: Record<string, unknown>) => {
      const { checkSignerJwks, envelopeAlgorithm, generateSigningKey } = await import('../../graph/carrier/index.ts');
      const alg = envelopeAlgorithm(opts['alg'], '--alg');
      const { privateJwk, publicJwk } = await generateSigningKey(alg, typeof opts['kid'] === 'string' ? opts['kid'] : undefined);
      const jwksPath = String(opts['jwks']);
      let keys: object[] = [];
      const existing = await readFile(jwksPath, 'utf8').catch(() => undefined);
      if (existing !== undefined) keys = [...checkSignerJwks(JSON.parse(existing) as unknown, jwksPath).keys];
      if (keys.some((k) => (k as { kid?: unknown }).kid === publicJwk.kid)) throw new ToolgraphError('TG_BAD_REQUEST', `${jwksPath} already has a key with kid ${JSON.stringify(publicJwk.kid)}.`);
      try {
        await writeFile(String(opts['private']), `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        throw new ToolgraphError('TG_BAD_REQUEST', `--private ${String(opts['private'])}: cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); it must not exist yet.`);
      }
      await writeFile(jwksPath, `${JSON.stringify({ keys: [...keys, publicJwk] }, null, 2)}\n`);
      io.out(`wrote the private key ${String(opts['private'])} and added kid ${publicJwk.kid} (${alg}) to ${jwksPath}`);
    });
}
