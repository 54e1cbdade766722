import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * The GraphQL part of `npm run codegen` (scripts/codegen/run.ts runs it with `generate()` and writes the
 * outputs itself, adding headers). Paths are relative to the repository root.
 *
 * No resolver signatures: the graph service serves every graph through generic resolvers built from
 * that graph's own catalogue at run time (src/graph/graphql), so signatures generated from the reference
 * graph's SDL would type one graph's labels that no resolver is written for (docs/architecture.md).
 */
const config: CodegenConfig = {
  schema: 'specs/graph.graphql',
  documents: ['specs/operations/*.graphql'],
  ignoreNoDocuments: false,
  // Local imports end in .ts, as everywhere else in this repository (Node 22 runs them directly).
  importExtension: '.ts',
  generates: {
    'generated/graphql/client/': {
      preset: 'client',
      presetConfig: {
        persistedDocuments: { hashAlgorithm: 'sha256' },
        fragmentMasking: false,
      },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        defaultScalarType: 'unknown',
      },
    },
  },
};

export default config;
