import { access } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate, type CodegenConfig } from '@graphql-codegen/cli';
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
  const outputs = (await generate({ ...config, cwd: root, silent: true, verbose: false }, false)) as Array<{ filename: string; content: string }>;
  const sources = [GRAPHQL_SCHEMA, GRAPHQL_OPERATIONS, 'codegen.ts'];
  return outputs.map((output) => {
    const relative = path.relative(root, path.resolve(root, output.filename)).split(path.sep).join('/');
    if (!relative.startsWith(OUTPUT_PREFIX)) throw new Error(`codegen.ts writes ${output.filename}, outside ${OUTPUT_PREFIX}`);
    return { path: relative.slice(OUTPUT_PREFIX.length), sources, content: output.content };
  });
}

/** The GraphQL step needs the introspected SDL; it is absent only while the repository is being set up. */
export async function hasGraphqlSchema(root: string): Promise<boolean> {
  return access(path.join(root, GRAPHQL_SCHEMA)).then(() => true, () => false);
}
