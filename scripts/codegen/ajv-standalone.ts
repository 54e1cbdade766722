import type { Ajv } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';

const standaloneCode = standaloneCodeModule.default;

/**
 * ajv's ESM standalone output still loads runtime helpers with `require("ajv/dist/runtime/x").default`
 * (ucs2length for code-point maxLength, equal for const/enum). ESM has no `require`, and a default import
 * of a CommonJS module means different things to Node and to vitest, so the module gets its own
 * `createRequire`, which resolves the same file everywhere (tsx, vitest, Node 22 on .ts, compiled dist).
 */
export function rewriteRuntimeRequires(code: string): { imports: string[]; body: string } {
  const needsRequire = /\brequire\("ajv(?:-formats)?\/dist\/[\w/.-]+"\)/.test(code);
  const body = code.replace(/\brequire\(/g, 'requireRuntime(');
  if (/requireRuntime\("(?!ajv(?:-formats)?\/dist\/)/.test(body)) throw new Error('ajv standalone output requires a module outside ajv');
  const imports = needsRequire
    ? ["import { createRequire } from 'node:module';", 'const requireRuntime = createRequire(import.meta.url);']
    : [];
  return { imports, body };
}

/**
 * Standalone code for `refs` (export name → schema id or $ref), without ajv's own export lines:
 * the caller declares typed exports for the returned function names.
 */
export function standaloneFunctions(ajv: Ajv, refs: Record<string, string>): { imports: string[]; body: string; functionOf: Record<string, string> } {
  const raw = standaloneCode(ajv, refs);
  const functionOf: Record<string, string> = {};
  const stripped = raw
    .replace(/^"use strict";/, '')
    .replace(/export const (\w+) = (\w+);/g, (_m, exportName: string, fn: string) => {
      functionOf[exportName] = fn;
      return '';
    })
    .replace(/export default \w+;/g, '');
  for (const name of Object.keys(refs)) {
    if (functionOf[name] === undefined) throw new Error(`ajv standalone output has no export ${name}`);
  }
  const { imports, body } = rewriteRuntimeRequires(stripped);
  return { imports, body, functionOf };
}
