/**
 * Opening the configured adapter, without loading the others: index.ts exports every adapter (and so
 * loads pg), while opening a file or memory store needs neither. serve's store opener imports this.
 */
export { openPersistence } from './open-persistence.ts';
