import type { GeneratedFile } from './generated-file.ts';

/** The shared type of every generated validator (`generated/validators/validator.ts`). */
export function validatorTypeFile(sources: readonly string[]): GeneratedFile {
  return {
    path: 'validators/validator.ts',
    sources,
    content: `import type { ErrorObject } from 'ajv';

/** An ajv standalone validator: a type guard that leaves the violations of its last failed call on \`errors\`. */
export interface Validator<T> {
  (data: unknown): data is T;
  errors?: ErrorObject[] | null;
}
`,
  };
}
