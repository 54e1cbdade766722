import type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
import { ToolgraphError } from '../errors/index.ts';
import type { CatalogueEntry } from './catalogue-entry.ts';
import { CatalogueSearch } from './catalogue-search.ts';
import { fragmentOf } from './fragments.ts';
import { fragmentUriTemplate, manifestUri, normalizeBaseUrl } from './public-urls.ts';
import { assertSchemaManifest } from './validate-manifest.ts';

export interface CatalogueOptions {
  /** Public base URL of the catalogue's routes, e.g. `https://schemas.example.com` (see docs/catalogue.md). */
  publicBaseUrl: string;
}

export interface CatalogueSearchResult {
  readonly manifest: SchemaManifest;
  readonly score: number;
  readonly description: string;
}

/**
 * The schema catalogue: operations from every source, by digest, alias and operation, with search.
 * Every manifest is checked by the generated validator when it is built, before it can be served; a
 * source whose manifests fail is refused whole and the previous version stays.
 */
export class Catalogue {
  readonly #listeners = new Set<(source: string) => void>();
  #base: string;
  readonly #sources = new Map<string, readonly CatalogueEntry[]>();
  /** A source's place in the catalogue's order (sources in the order they were added). */
  readonly #ordinals = new Map<string, number>();
  #nextOrdinal = 0;
  /** The ordinal of the source each indexed entry was put under. */
  readonly #entryOrdinals = new WeakMap<CatalogueEntry, number>();
  /** Every entry under a digest or operation, in catalogue order (the first is served by digest). */
  readonly #byDigest = new Map<string, CatalogueEntry[]>();
  readonly #byAlias = new Map<string, CatalogueEntry>();
  readonly #byOperation = new Map<string, CatalogueEntry[]>();
  #manifests = new WeakMap<CatalogueEntry, SchemaManifest>();
  readonly #search = new CatalogueSearch();
  #generation = 0;

  constructor(options: CatalogueOptions) {
    this.#base = normalizeBaseUrl(options.publicBaseUrl);
  }

  get publicBaseUrl(): string {
    return this.#base;
  }

  /** Bumped on every change; lets callers cache derived views. */
  get generation(): number {
    return this.#generation;
  }

  /** Rebuilds every manifest's URIs from a new base (e.g. once the host knows its bound port). */
  setPublicBaseUrl(publicBaseUrl: string): void {
    const base = normalizeBaseUrl(publicBaseUrl);
    const manifests = new WeakMap<CatalogueEntry, SchemaManifest>();
    for (const entries of this.#sources.values()) for (const entry of entries) manifests.set(entry, materialize(base, entry));
    this.#base = base;
    this.#manifests = manifests;
    this.#generation++;
  }

  /**
   * Adds a source's entries or replaces the entries it had. Aliases must stay unique across sources.
   * Only this source's index entries change, and all at once: a reader sees the old entries or the
   * new ones, never a mix.
   */
  /** Called with a source's name after its entries changed (put or removed); returns the unsubscribe. */
  onSourceChange(listener: (source: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(source: string): void {
    for (const listener of this.#listeners) listener(source);
  }

  putSource(name: string, entries: readonly CatalogueEntry[]): void {
    const steps = this.putSourceSteps(name, entries, Infinity);
    for (let step = steps.next(); step.done !== true; step = steps.next());
  }

  /**
   * `putSource` in steps, for a caller that gives the event loop back between them (a graph at the
   * schema caps has thousands of operations): manifests are checked in steps of `perStep`, then the
   * indexes change at once as in `putSource`; search text is re-indexed over the next steps (hits
   * resolve to the new entries throughout).
   */
  *putSourceSteps(name: string, entries: readonly CatalogueEntry[], perStep: number): Generator<void, void, void> {
    const clash = [...this.#sources.keys()].find((other) => other !== name && other.toLowerCase() === name.toLowerCase());
    if (clash) throw new ToolgraphError('TG_BAD_REQUEST', `Catalogue source ${JSON.stringify(name)} clashes with source ${JSON.stringify(clash)}: source names must differ in more than case.`);
    const aliases = new Set<string>();
    for (const entry of entries) {
      const alias = entry.manifest.alias.toLowerCase();
      const owner = this.#byAlias.get(alias);
      if (aliases.has(alias) || (owner && owner.source !== name)) {
        throw new ToolgraphError('TG_BAD_REQUEST', `Catalogue source ${JSON.stringify(name)}: alias ${JSON.stringify(entry.manifest.alias)} is already taken${owner && owner.source !== name ? ` by source ${JSON.stringify(owner.source)}` : ''}.`);
      }
      aliases.add(alias);
    }
    // Everything that can fail (the generated validator on each manifest) runs before anything changes.
    const base = this.#base;
    const built: (readonly [CatalogueEntry, SchemaManifest])[] = [];
    for (const entry of entries) {
      built.push([entry, materialize(base, entry)]);
      if (built.length % perStep === 0) yield;
    }
    // The base URL may have moved meanwhile (setPublicBaseUrl): manifests carry the current one.
    for (const [entry, manifest] of built) this.#manifests.set(entry, base === this.#base ? manifest : materialize(this.#base, entry));
    const previous = this.#sources.get(name) ?? [];
    this.#unindex(previous);
    this.#sources.set(name, [...entries]);
    if (!this.#ordinals.has(name)) this.#ordinals.set(name, this.#nextOrdinal++);
    this.#index(name, entries);
    this.#generation++;
    this.#changed(name);
    if (perStep !== Infinity) yield;
    yield* this.#search.updateSteps(previous, entries, perStep);
  }

  removeSource(name: string): boolean {
    const previous = this.#sources.get(name);
    if (previous === undefined) return false;
    this.#unindex(previous);
    this.#search.update(previous, []);
    this.#sources.delete(name);
    this.#ordinals.delete(name);
    this.#generation++;
    this.#changed(name);
    return true;
  }

  sourceNames(): string[] {
    return [...this.#sources.keys()];
  }

  /** Every entry, sources in the order they were added. */
  entries(): CatalogueEntry[] {
    return [...this.#sources.values()].flat();
  }

  get size(): number {
    let total = 0;
    for (const entries of this.#sources.values()) total += entries.length;
    return total;
  }

  /** The entry served under a digest: the first added when two sources yield the same canonical document. */
  entryByDigest(schemaSha256: string, allow?: (entry: CatalogueEntry) => boolean): CatalogueEntry | undefined {
    const entries = this.#byDigest.get(schemaSha256);
    return allow === undefined ? entries?.[0] : entries?.find(allow);
  }

  manifestByDigest(schemaSha256: string, allow?: (entry: CatalogueEntry) => boolean): SchemaManifest | undefined {
    const entry = this.entryByDigest(schemaSha256, allow);
    return entry && this.manifestOf(entry);
  }

  /**
   * Entries named `name`: the one alias match (case-insensitive) if any, else every operation of that
   * name. With `allow`, entries it refuses are treated as absent (a hidden alias falls through to the
   * operations, as an alias nobody has does).
   */
  lookup(name: string, allow?: (entry: CatalogueEntry) => boolean): CatalogueEntry[] {
    const byAlias = this.#byAlias.get(name.toLowerCase());
    if (byAlias && (allow === undefined || allow(byAlias))) return [byAlias];
    const byOperation = this.#byOperation.get(name) ?? [];
    return allow === undefined ? [...byOperation] : byOperation.filter(allow);
  }

  /** The served manifest of an entry (URIs from the current public base URL). */
  manifestOf(entry: CatalogueEntry): SchemaManifest {
    let manifest = this.#manifests.get(entry);
    if (!manifest) {
      manifest = materialize(this.#base, entry);
      this.#manifests.set(entry, manifest);
    }
    return manifest;
  }

  /** Fragment `index` of the schema with this digest; undefined for an unknown digest or an index past the end. */
  fragment(schemaSha256: string, index: number, allow?: (entry: CatalogueEntry) => boolean): Uint8Array | undefined {
    const entry = this.entryByDigest(schemaSha256, allow);
    return entry && fragmentOf(entry.document, index);
  }

  /** Ranked search; an empty query or no match gives []. */
  search(query: string, limit = 10, allow?: (entry: CatalogueEntry) => boolean): CatalogueSearchResult[] {
    return this.#search.search(query, limit, allow).map((hit) => ({
      manifest: this.manifestOf(hit.entry),
      score: hit.score,
      description: hit.entry.description,
    }));
  }

  #unindex(entries: readonly CatalogueEntry[]): void {
    for (const entry of entries) {
      this.#byAlias.delete(entry.manifest.alias.toLowerCase());
      withoutEntry(this.#byDigest, entry.manifest.schema_sha256, entry);
      withoutEntry(this.#byOperation, entry.manifest.operation, entry);
    }
  }

  #index(name: string, entries: readonly CatalogueEntry[]): void {
    const ordinal = this.#ordinals.get(name)!;
    const rank = (entry: CatalogueEntry): number => this.#entryOrdinals.get(entry)!;
    for (const entry of entries) {
      this.#entryOrdinals.set(entry, ordinal);
      this.#byAlias.set(entry.manifest.alias.toLowerCase(), entry);
      withEntry(this.#byDigest, entry.manifest.schema_sha256, entry, ordinal, rank);
      withEntry(this.#byOperation, entry.manifest.operation, entry, ordinal, rank);
    }
  }
}

/** Removes an entry from the list under `key` (dropping the key with its last entry). */
function withoutEntry(map: Map<string, CatalogueEntry[]>, key: string, entry: CatalogueEntry): void {
  const list = map.get(key);
  if (!list) return;
  const rest = list.filter((e) => e !== entry);
  if (rest.length === 0) map.delete(key);
  else map.set(key, rest);
}

/**
 * Adds an entry to the list under `key` in catalogue order: after the entries of sources added
 * before its own, and after its own source's earlier entries (a source's entries are indexed in order).
 */
function withEntry(map: Map<string, CatalogueEntry[]>, key: string, entry: CatalogueEntry, ordinal: number, rank: (entry: CatalogueEntry) => number): void {
  const list = map.get(key);
  if (!list) {
    map.set(key, [entry]);
    return;
  }
  let at = list.length;
  while (at > 0 && rank(list[at - 1]!) > ordinal) at--;
  map.set(key, [...list.slice(0, at), entry, ...list.slice(at)]);
}

/** A served manifest: the core plus its URIs, checked by the generated validator (TG_MANIFEST_INVALID otherwise). */
function materialize(base: string, entry: CatalogueEntry): SchemaManifest {
  const core = entry.manifest;
  // Fields in the order the JSON Schema lists them, whatever order the core was read in.
  const manifest = {
    version: core.version,
    operation: core.operation,
    alias: core.alias,
    source_sha256: core.source_sha256,
    schema_sha256: core.schema_sha256,
    input_schema_sha256: core.input_schema_sha256,
    output_schema_sha256: core.output_schema_sha256,
    schema_bytes: core.schema_bytes,
    fragment_count: core.fragment_count,
    manifest_uri: manifestUri(base, entry.manifest.schema_sha256),
    fragment_uri_template: fragmentUriTemplate(base, entry.manifest.schema_sha256),
  };
  return assertSchemaManifest(manifest);
}
