import MiniSearch, { type Options } from 'minisearch';
import type { CatalogueEntry } from './catalogue-entry.ts';

/** One hit: the entry and its score (higher is better; exact operation or alias matches score above the rest). */
export interface SearchHit {
  readonly entry: CatalogueEntry;
  readonly score: number;
  readonly exact: boolean;
}

export interface SearchDocument {
  id: string;
  operation: string;
  alias: string;
  description: string;
  fields: string;
}

/** What an update did to the index: documents added and removed (an unchanged document is neither). */
export interface SearchUpdate {
  readonly added: number;
  readonly removed: number;
}

/** Splits on non-alphanumerics and also at camelCase humps, so `getSchemaManifest` matches "schema manifest". */
function tokenizeForSearch(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}]+/u)) {
    if (word.length === 0) continue;
    tokens.push(word);
    const humps = word.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u);
    if (humps.length > 1) tokens.push(...humps);
  }
  return tokens;
}

/**
 * The index's fields, tokenizer and ranking, exported so a benchmark's peer can search with exactly
 * these (scripts/bench/tool-search.ts) rather than a copy that drifts.
 */
export const CATALOGUE_SEARCH_OPTIONS = {
  fields: ['operation', 'alias', 'description', 'fields'],
  idField: 'id',
  tokenize: tokenizeForSearch,
  processTerm: (term: string) => term.toLowerCase(),
  searchOptions: {
    boost: { operation: 4, alias: 3, description: 1, fields: 1.5 },
    prefix: true,
    fuzzy: (term: string) => (term.length > 4 ? 0.2 : false),
    combineWith: 'OR',
  },
} as const satisfies Options<SearchDocument>;

function documentOf(entry: CatalogueEntry): SearchDocument {
  const id = entry.manifest.alias;
  return { id, operation: entry.manifest.operation, alias: id, description: entry.description, fields: entry.fields.join(' ') };
}

function sameDocument(a: SearchDocument, b: SearchDocument): boolean {
  return a.operation === b.operation && a.alias === b.alias && a.description === b.description && a.fields === b.fields;
}

/**
 * Full-text search over operation, alias, description and field names (MiniSearch: BM25 with prefix
 * and fuzzy matching). Updated per source: a changed source's documents are removed and added one by
 * one (MiniSearch `remove`, which drops their terms at once, so scores equal a fresh build's), and a
 * document whose text did not change (most of a graph's operations when one label is added) stays.
 */
export class CatalogueSearch {
  readonly #index: MiniSearch<SearchDocument>;
  readonly #byId = new Map<string, CatalogueEntry>();
  /** The documents as added: `remove` needs the original text to find its terms. */
  readonly #documents = new Map<string, SearchDocument>();

  constructor(entries: Iterable<CatalogueEntry> = []) {
    this.#index = new MiniSearch<SearchDocument>(CATALOGUE_SEARCH_OPTIONS);
    this.update([], entries);
  }

  /** Number of indexed documents. */
  get size(): number {
    return this.#byId.size;
  }

  /**
   * Replaces `removed` entries (those of one source as they were) by `added` (as they are now).
   * Synchronous, so a reader never sees a half-updated index.
   */
  update(removed: Iterable<CatalogueEntry>, added: Iterable<CatalogueEntry>): SearchUpdate {
    const steps = this.updateSteps(removed, added, Infinity);
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
    }
  }

  /**
   * `update` in steps of at most `perStep` documents re-indexed, for a caller that gives the event
   * loop back between them (a large source changes thousands of documents at once). Hits resolve to
   * the new entries from the first step on; until the last, the text of a changed document may still
   * be the old one.
   */
  *updateSteps(removed: Iterable<CatalogueEntry>, added: Iterable<CatalogueEntry>, perStep: number): Generator<void, SearchUpdate, void> {
    const incoming = new Map<string, CatalogueEntry>();
    for (const entry of added) incoming.set(entry.manifest.alias, entry);
    const stale: string[] = [];
    const kept = new Set<string>();
    let compared = 0;
    for (const entry of removed) {
      const id = entry.manifest.alias;
      const current = this.#documents.get(id);
      if (current === undefined || this.#byId.get(id) !== entry) continue;
      const next = incoming.get(id);
      if (next !== undefined && sameDocument(current, documentOf(next))) kept.add(id);
      else stale.push(id);
      // Nothing has changed yet: comparing can give the event loop back like the rest.
      if (++compared % (perStep * 4) === 0) yield;
    }
    // Every hit resolves to a current entry from now on; only the indexed text catches up below.
    for (const id of stale) if (!incoming.has(id)) this.#byId.delete(id);
    const fresh: [string, CatalogueEntry][] = [];
    for (const [id, entry] of incoming) {
      this.#byId.set(id, entry);
      if (!kept.has(id)) fresh.push([id, entry]);
    }
    let work = 0;
    for (const id of stale) {
      this.#index.remove(this.#documents.get(id)!);
      this.#documents.delete(id);
      if (++work % perStep === 0) yield;
    }
    let batch: SearchDocument[] = [];
    for (const [id, entry] of fresh) {
      const document = documentOf(entry);
      this.#documents.set(id, document);
      batch.push(document);
      if (batch.length >= perStep) {
        this.#index.addAll(batch);
        batch = [];
        yield;
      }
    }
    this.#index.addAll(batch);
    return { added: fresh.length, removed: stale.length };
  }

  /** Ranked hits: exact (case-insensitive) operation or alias matches first, then by score, operation, alias. */
  /** `allow` leaves entries out before ranking, so the scores of what is shown say nothing about what is not. */
  search(query: string, limit: number, allow?: (entry: CatalogueEntry) => boolean): SearchHit[] {
    const text = query.trim();
    if (text.length === 0) return [];
    const wanted = text.toLowerCase();
    const isExact = (entry: CatalogueEntry): boolean =>
      entry.manifest.alias.toLowerCase() === wanted || entry.manifest.operation.toLowerCase() === wanted;
    const scored = new Map<string, number>();
    for (const result of this.#index.search(text)) scored.set(String(result.id), result.score);
    for (const [id, entry] of this.#byId) if (isExact(entry) && !scored.has(id)) scored.set(id, 0);
    const hits = [...scored].flatMap(([id, score]) => {
      // A document being re-indexed in steps (updateSteps) may name an entry that is gone.
      const entry = this.#byId.get(id);
      return entry !== undefined && (allow === undefined || allow(entry)) ? [{ entry, score, exact: isExact(entry) }] : [];
    });
    // Exact matches are lifted above the best inexact score so scores stay in ranking order.
    const top = Math.max(0, ...hits.filter((h) => !h.exact).map((h) => h.score));
    const ranked = hits.map((h) => (h.exact ? { ...h, score: top + 1 + h.score } : h));
    ranked.sort((a, b) => b.score - a.score || order(a.entry.manifest.operation, b.entry.manifest.operation) || order(a.entry.manifest.alias, b.entry.manifest.alias));
    return ranked.slice(0, limit);
  }
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
