import { readFile } from 'node:fs/promises';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, importPKCS8, type CryptoKey, type JWK } from 'jose';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { ENVELOPE_ALGORITHMS, type EnvelopeAlgorithm } from './envelope-format.ts';

/** A signer's private key, ready for `signEnvelope`. */
export interface SigningKey {
  readonly key: CryptoKey;
  readonly alg: EnvelopeAlgorithm;
  readonly kid: string | undefined;
}

function invalid(message: string): ToolgraphError {
  return new ToolgraphError('TG_BAD_REQUEST', message);
}

export function envelopeAlgorithm(raw: unknown, where: string): EnvelopeAlgorithm {
  if (typeof raw === 'string' && (ENVELOPE_ALGORITHMS as readonly string[]).includes(raw)) return raw as EnvelopeAlgorithm;
  throw invalid(`${where}: expected one of ${ENVELOPE_ALGORITHMS.join(', ')}, got ${describeValue(raw)}.`);
}

/**
 * Reads a signer's private key from a file: a private JWK (its `alg` and `kid` are used unless
 * given) or a PKCS#8 PEM (`alg` must be given).
 */
export async function readSigningKey(file: string, options: { alg?: string; kid?: string } = {}): Promise<SigningKey> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw invalid(`--key ${file}: cannot be read: ${(error as Error).message}`);
  }
  if (text.includes('-----BEGIN PRIVATE KEY-----')) {
    if (options.alg === undefined) throw invalid(`--key ${file} is a PEM key: give --alg (${ENVELOPE_ALGORITHMS.join(', ')}).`);
    const alg = envelopeAlgorithm(options.alg, '--alg');
    return { key: await importPKCS8(text, alg), alg, kid: options.kid };
  }
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw invalid(`--key ${file}: expected a private JWK (JSON) or a PKCS#8 PEM key.`);
  }
  if (typeof jwk !== 'object' || jwk === null || typeof jwk.d !== 'string') throw invalid(`--key ${file}: expected a private JWK (with "d"), got ${describeValue(jwk)}.`);
  const alg = envelopeAlgorithm(options.alg ?? jwk.alg, jwk.alg === undefined && options.alg === undefined ? `--key ${file} has no "alg"; --alg` : 'alg');
  const key = await importJWK(jwk, alg);
  if (!(typeof key === 'object' && 'type' in key)) throw invalid(`--key ${file}: not an asymmetric private key.`);
  return { key: key as CryptoKey, alg, kid: options.kid ?? jwk.kid };
}

/** A new key pair: the private JWK for the signer, the public JWK for the carrier's JWKS (kid: the RFC 7638 thumbprint). */
export async function generateSigningKey(alg: EnvelopeAlgorithm = 'EdDSA', kid?: string): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const publicJwk = await exportJWK(publicKey);
  const id = kid ?? await calculateJwkThumbprint(publicJwk);
  return {
    privateJwk: { ...(await exportJWK(privateKey)), alg, kid: id, use: 'sig' },
    publicJwk: { ...publicJwk, alg, kid: id, use: 'sig' },
  };
}
