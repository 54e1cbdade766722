import type { Logger } from '../../log/index.ts';
import type { ChangeEvent } from './types.ts';

export type ChangeListener = (event: ChangeEvent) => void;

/**
 * Publishes every committed change, synchronously and in commit order, right after it is applied.
 * A listener that throws is logged and skipped; it cannot fail the commit that is already durable.
 */
export class ChangeFeed {
  #listeners: ChangeListener[] = [];
  readonly #logger: Logger | undefined;

  constructor(logger?: Logger) {
    this.#logger = logger;
  }

  get size(): number {
    return this.#listeners.length;
  }

  subscribe(listener: ChangeListener): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  publish(event: ChangeEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger?.error({ err: error, version: event.version }, 'change feed listener failed');
      }
    }
  }
}
