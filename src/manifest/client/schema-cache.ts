import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SchemaManifest } from '../../../generated/types/schema-manifest.ts';
import { isDigest } from '../limits.ts';
import { sha256Hex } from '../../digest/index.ts';
import { isSchemaManifest } from '../validate-manifest.ts';
import { writeFileAtomic } from './write-atomic.ts';

/**
 * The client's cache under `<cacheDir>/schemas/`: canonical documents by digest (`<sha>.json`, safe
 * to share: the name is the content's hash) and the manifests a name last resolved to, per catalogue
 * URL (`manifests/<sha256(url) prefix>/<name>.json`), so a second `schema get` works offline.
 * Nothing read from here is trusted: documents are re-verified and manifests re-validated.
 */
export class SchemaCache {
  readonly #root: string;

  constructor(cacheDir: string) {
    this.#root = join(cacheDir, 'schemas');
  }

  documentPath(schemaSha256: string): string {
    if (!isDigest(schemaSha256)) throw new TypeError(`not a schema digest: ${schemaSha256}`);
    return join(this.#root, `${schemaSha256}.json`);
  }

  async readDocument(schemaSha256: string): Promise<Buffer | undefined> {
    return readOptional(this.documentPath(schemaSha256));
  }

  async writeDocument(schemaSha256: string, document: Uint8Array): Promise<void> {
    await mkdir(this.#root, { recursive: true });
    // No fsync: every read re-verifies the document against its digest, so a copy torn by a crash is dropped and fetched again.
    await writeFileAtomic(this.documentPath(schemaSha256), document, { durable: false });
  }

  async dropDocument(schemaSha256: string): Promise<void> {
    await rm(this.documentPath(schemaSha256), { force: true });
  }

  async readManifest(catalogueUrl: string, name: string): Promise<SchemaManifest | undefined> {
    const bytes = await readOptional(this.#manifestPath(catalogueUrl, name));
    if (!bytes) return undefined;
    try {
      const value: unknown = JSON.parse(bytes.toString('utf8'));
      return isSchemaManifest(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async writeManifest(catalogueUrl: string, name: string, manifest: SchemaManifest): Promise<void> {
    const path = this.#manifestPath(catalogueUrl, name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFileAtomic(path, Buffer.from(JSON.stringify(manifest), 'utf8'));
  }

  #manifestPath(catalogueUrl: string, name: string): string {
    // Names are operations, aliases or digests; anything else is hashed so it is always a safe file name.
    const file = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/.test(name) ? name : `~${sha256Hex(name)}`;
    return join(this.#root, 'manifests', sha256Hex(catalogueUrl).slice(0, 16), `${file}.json`);
  }
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
