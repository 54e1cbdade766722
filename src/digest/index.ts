export { sha256Hex } from './sha256-hex.ts';
