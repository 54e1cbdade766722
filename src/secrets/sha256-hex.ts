import { hash } from 'node:crypto';

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
