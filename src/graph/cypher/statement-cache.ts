/**
 * A bounded map from statement text to its prepared form, so a statement sent again (the common case
 * for a service) is not lexed, parsed, checked and laid out again. Bounded by entries and by the
 * total length of the cached texts (each text is at most 32 KiB). Eviction is second-chance (CLOCK):
 * a hit only marks its entry, which then survives one eviction sweep; the least recently inserted
 * unmarked entry goes. lru-cache (max + maxSize) does the same job as fast (`npm run bench --
 * bounded-maps`: median ratio 0.83 lru-cache / this), but evicts in another order, and
 * test/graph/cypher/pushdown.test.ts pins this one's second chance: kept until that may change.
 */
export class StatementCache<T> {
  readonly #entries = new Map<string, { value: T; used: boolean }>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  constructor(maxEntries: number, maxChars: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(text: string): T | undefined {
    const entry = this.#entries.get(text);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  set(text: string, value: T): void {
    if (text.length > this.#maxChars) return;
    if (this.#entries.delete(text)) this.#chars -= text.length;
    this.#entries.set(text, { value, used: false });
    this.#chars += text.length;
    while (this.#entries.size > this.#maxEntries || this.#chars > this.#maxChars) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      if (entry.used || oldest === text) {
        // A second chance (the entry just added always gets one): back to the end, unmarked.
        entry.used = false;
        this.#entries.set(oldest, entry);
      } else this.#chars -= oldest.length;
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#chars = 0;
  }
}
