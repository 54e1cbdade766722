export { sha256Hex } from './sha256-hex.ts';
export type { Digestible } from './sha256-hex.ts';
