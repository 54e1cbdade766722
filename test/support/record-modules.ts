/**
 * Preloaded with `node --import ./test/support/record-modules.ts …`: records the URL of every module
 * the process resolves (ESM imports, dynamic imports and require alike) and writes them, one per line,
 * to the file named by TOOLGRAPH_RECORD_MODULES when the process exits. Tests read it to see what a
 * command loaded.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env['TOOLGRAPH_RECORD_MODULES'];
const seen = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => {
  if (out) writeFileSync(out, [...seen].join('\n'));
});
