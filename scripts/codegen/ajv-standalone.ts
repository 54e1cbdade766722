import type { Ajv } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';

const standaloneCode = standaloneCodeModule.default;

/**
 * ajv's ESM standalone output still pulls runtime helpers with `require("ajv/dist/runtime/x").default`
 * (ucs2length for code-point maxLength, equal for const/enum). Node ESM has no `require`, so each becomes a
 * default import of the CommonJS module, with an explicit `.js` path because ajv has no `exports` map.
 */
export function rewriteRuntimeRequires(code: string): { imports: string[]; body: string } {
  const imports: string[] = [];
  const body = code.replace(
    /const (\w+) = require\("(ajv(?:-formats)?\/dist\/[\w/.-]+?)(?:\.js)?"\)\.(\w+);/g,
    (_match, name: string, modulePath: string, member: string) => {
      imports.push(`import ${name}Module from '${modulePath}.js';`);
      return `const ${name} = ${name}Module.${member};`;
    },
  );
  if (/\brequire\(/.test(body)) throw new Error('ajv standalone output has a require() this script cannot rewrite');
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
