import type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../errors/index.ts';
import type { Principal } from '../principal/index.ts';
import type { Catalogue, CatalogueSearchResult } from './catalogue.ts';
import type { CatalogueEntry } from './catalogue-entry.ts';

/** Which entries one caller may see. */
type EntryFilter = (entry: CatalogueEntry) => boolean;

/**
 * The catalogue's one access decision: which entries `principal` may see (undefined: every one).
 * `serve` fills it from the graphs' access policies (a graph's operations only to its readers).
 */
export type CatalogueVisibility = (principal: Principal) => EntryFilter | undefined;

/**
 * The catalogue as one caller sees it: every read any surface makes (GET /schemas/*, the `schemas`
 * tool over REST and MCP) goes through one of these, so a hidden entry is absent alike everywhere,
 * exactly as if it were not in the catalogue: not found by digest, alias or operation, not in search.
 */
export class CatalogueView {
  readonly #catalogue: Catalogue;
  readonly #allow: EntryFilter | undefined;
  /** True when answers differ per caller (shared caches must not hand one caller's answer to another), an unfiltered admin view included. */
  readonly perCaller: boolean;

  constructor(catalogue: Catalogue, allow: EntryFilter | undefined, perCaller: boolean) {
    this.#catalogue = catalogue;
    this.#allow = allow;
    this.perCaller = perCaller;
  }

  search(query: string, limit: number): CatalogueSearchResult[] {
    return this.#catalogue.search(query, limit, this.#allow);
  }

  entryByDigest(schemaSha256: string): CatalogueEntry | undefined {
    return this.#catalogue.entryByDigest(schemaSha256, this.#allow);
  }

  manifestByDigest(schemaSha256: string): SchemaManifest | undefined {
    return this.#catalogue.manifestByDigest(schemaSha256, this.#allow);
  }

  /** Entries named `name` (alias, else operation) that this caller may see. */
  lookup(name: string): CatalogueEntry[] {
    return this.#catalogue.lookup(name, this.#allow);
  }

  /** The served manifest of an entry this view answered. */
  manifestOf(entry: CatalogueEntry): SchemaManifest {
    return this.#catalogue.manifestOf(entry);
  }

  fragment(schemaSha256: string, index: number): Uint8Array | undefined {
    return this.#catalogue.fragment(schemaSha256, index, this.#allow);
  }
}

/**
 * The view of `principal` (undefined: no verified caller). Without a visibility every entry is
 * public, and a caller without a principal is the local operator (AUTH_TYPE=none, stdio). With one,
 * a caller must be verified: a surface that reached here without a principal is refused rather than
 * shown what the policies withhold.
 */
export function catalogueViewOf(catalogue: Catalogue, visibility: CatalogueVisibility | undefined, principal: Principal | undefined): CatalogueView {
  if (visibility === undefined) return new CatalogueView(catalogue, undefined, false);
  if (principal === undefined) throw new ToolgraphError('TG_UNAUTHENTICATED', 'The catalogue lists a graph\'s operations only to callers its access policy lets read the graph; this request carries no verified caller.');
  return new CatalogueView(catalogue, visibility(principal), true);
}
