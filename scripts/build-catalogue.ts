// Builds generated/catalogue/catalogue.json from the static sources of truth: every OpenAPI operation
// of specs/tool-server.openapi.yaml and every root Query/Mutation field of specs/graph.graphql, as
// canonical schema documents with their digests (everything of a manifest except its URIs, which the
// runtime fills from the public base URL).
//   node scripts/build-catalogue.ts [--out FILE]     writes the file (default generated/catalogue/catalogue.json)
// `catalogueFiles(root)` returns the same file for the codegen runner, which owns generated/.
// Fails, naming each one, on operation names that do not fit ^[A-Za-z][A-Za-z0-9_]*$ or 512 characters.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import {
  buildCatalogueEntriesStrict, graphqlSource, openApiSource, staticCatalogueText, STATIC_CATALOGUE_FILE,
  type SchemaSource, type StaticSource,
} from '../src/manifest/index.ts';

interface SourceSpec {
  name: string;
  path: string;
  build: (root: string, name: string, bytes: Buffer) => SchemaSource;
}

/** The static sources, in catalogue order. Their names start every alias (docs/catalogue.md). */
export const CATALOGUE_SOURCES: readonly SourceSpec[] = [
  {
    name: 'tool-server',
    path: 'specs/tool-server.openapi.yaml',
    build: (root, name, bytes) => {
      const specsDir = join(root, 'specs');
      return openApiSource(name, bytes, {
        // Relative references (the SchemaManifest schema) are read from specs/ and inlined.
        resolveExternal: (uri) => {
          if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) return undefined;
          const file = resolve(specsDir, uri);
          if (!file.startsWith(`${specsDir}/`) || !existsSync(file)) return undefined;
          return parseYaml(readFileSync(file, 'utf8')) as unknown;
        },
      });
    },
  },
  { name: 'graph', path: 'specs/graph.graphql', build: (_root, name, bytes) => graphqlSource(name, bytes) },
];

/** One generated file, in the codegen runner's shape (path relative to generated/). */
export interface CatalogueFile {
  path: string;
  sources: string[];
  content: string;
}

/**
 * The generated catalogue for the specs under `root`. Throws TG_OPERATION_NAME_INVALID naming every
 * operation whose name cannot be a manifest operation (never rewritten), and for a missing source.
 */
export function catalogueFiles(root: string): CatalogueFile[] {
  const built: StaticSource[] = [];
  for (const spec of CATALOGUE_SOURCES) {
    const file = join(root, spec.path);
    const source = spec.build(root, spec.name, readFileSync(file));
    const entries = buildCatalogueEntriesStrict(source);
    built.push({ record: { name: source.name, path: spec.path, source_sha256: source.sourceSha256 }, entries });
  }
  const sources = CATALOGUE_SOURCES.map((s) => s.path);
  if (existsSync(join(root, 'specs', 'schema-manifest.schema.json'))) sources.push('specs/schema-manifest.schema.json');
  return [{ path: STATIC_CATALOGUE_FILE, sources, content: staticCatalogueText(built) }];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(import.meta.dirname, '..');
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out');
  const outFile = outIndex >= 0 && args[outIndex + 1] ? resolve(args[outIndex + 1]!) : join(root, 'generated', STATIC_CATALOGUE_FILE);
  try {
    const [file] = catalogueFiles(root);
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, file!.content);
    const count = (JSON.parse(file!.content) as { entries: unknown[] }).entries.length;
    process.stdout.write(`build-catalogue: ${count} operations into ${relative(process.cwd(), outFile)}\n`);
  } catch (error) {
    process.stderr.write(`build-catalogue: ${(error as { code?: string }).code ?? 'Error'}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
