import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * The GraphQL part of `npm run codegen` (scripts/codegen/run.ts runs it with `generate()` and writes the
 * outputs itself, adding headers). Paths are relative to the repository root.
 */
const config: CodegenConfig = {
  schema: 'specs/graph.graphql',
  documents: ['specs/operations/*.graphql'],
  ignoreNoDocuments: false,
  // Local imports end in .ts, as everywhere else in this repository (Node 22 runs them directly).
  importExtension: '.ts',
  generates: {
    'generated/graphql/resolvers.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        federation: true,
        enumsAsTypes: true,
        avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
        contextType: 'unknown',
        defaultScalarType: 'unknown',
      },
    },
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
