import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { formatJson } from './format.ts';
import type { GeneratedFile } from './generated-file.ts';

export const GRAPHQL_SCHEMA = 'specs/graph.graphql';
export const GRAPHQL_OPERATIONS = 'specs/operations/*.graphql';
const OUTPUT_PREFIX = 'generated/';

/**
 * Resolver signatures and the client preset (typed documents, sha256 persisted documents), configured by
 * `<root>/codegen.ts`. graphql-codegen runs in memory; the caller writes the files.
 */
export async function graphqlStep(root: string): Promise<GeneratedFile[]> {
  const module = (await import(pathToFileURL(path.join(root, 'codegen.ts')).href)) as { default: CodegenConfig };
  const config = module.default;
  // Loaded on first use: graphql-codegen is the slowest import of the codegen, and run.ts checks --out before it.
  const { generate } = await import('@graphql-codegen/cli');
  const outputs = (await generate({ ...config, cwd: root, silent: true, verbose: false }, false)) as Array<{ filename: string; content: string }>;
  const sources = [GRAPHQL_SCHEMA, GRAPHQL_OPERATIONS, 'codegen.ts'];
  return outputs.map((output) => {
    const relative = path.relative(root, path.resolve(root, output.filename)).split(path.sep).join('/');
    if (!relative.startsWith(OUTPUT_PREFIX)) throw new Error(`codegen.ts writes ${output.filename}, outside ${OUTPUT_PREFIX}`);
    // persisted-documents.json: keys in code-point order, whatever order the documents were found in.
    const content = relative.endsWith('.json') ? formatJson(JSON.parse(output.content)) : output.content;
    return { path: relative.slice(OUTPUT_PREFIX.length), sources, content };
  });
}
