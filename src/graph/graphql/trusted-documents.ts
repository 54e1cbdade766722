import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../../digest/index.ts';
import { ToolgraphError } from '../../errors/index.ts';

/** Where `npm run codegen` writes the client's persisted documents. */
export const PERSISTED_DOCUMENTS_PATH = 'generated/graphql/client/persisted-documents.json';

/** Finds the repository's persisted-documents.json above this module, from `src/` as from `dist/src/`. */
export function defaultPersistedDocumentsFile(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, PERSISTED_DOCUMENTS_PATH);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Reads trusted documents: a JSON object of lowercase sha256 hex → document text, as graphql-codegen's
 * client preset writes it. Every key must be the digest of its text, so a hand-edited file cannot
 * smuggle a document in under another document's id.
 */
export function loadTrustedDocuments(file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `Trusted documents ${file}: expected a readable JSON object of sha256 → document text (${(error as Error).message}).`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `Trusted documents ${file}: expected a JSON object of sha256 → document text.`);
  }
  const documents = new Map<string, string>();
  for (const [id, text] of Object.entries(parsed)) {
    if (typeof text !== 'string' || !/^[0-9a-f]{64}$/.test(id) || sha256Hex(text) !== id) {
      throw new ToolgraphError('TG_CONFIG_INVALID', `Trusted documents ${file}: the entry ${JSON.stringify(id.slice(0, 80))} is not the sha256 of its document text; regenerate the file with npm run codegen.`);
    }
    documents.set(id, text);
  }
  return documents;
}
