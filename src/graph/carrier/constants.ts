/** The carrier area's named constants, importable without loading the listener or jose (the CLI's help reads them). */
export { DEFAULT_ENVELOPE_LIFETIME_SECS } from './envelope-format.ts';
