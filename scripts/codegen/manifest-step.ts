import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { standaloneFunctions } from './ajv-standalone.ts';
import { prettyPrintScript } from './format.ts';
import type { GeneratedFile } from './generated-file.ts';

export const MANIFEST_SCHEMA = 'specs/schema-manifest.schema.json';

/** Options shared by every ajv instance of the codegen, so all validators report alike. */
export function ajvOptions() {
  return {
    code: { source: true, esm: true },
    // Every violation at once (messages list them all); verbose puts the offending value and subschema on each error.
    allErrors: true,
    verbose: true,
    strict: true,
  } as const;
}

/** One standalone JSON Schema of specs/: its TypeScript type and its ajv standalone validator. */
export interface SchemaFileStep {
  /** The schema, relative to the repository root. */
  readonly schemaFile: string;
  /** The type's name, also the validator's (`validate<TypeName>`). */
  readonly typeName: string;
  /** The generated files' base name: `types/<base>.ts` and `validators/<base>.ts`. */
  readonly fileBase: string;
}

/** `generated/types/<base>.ts` and `generated/validators/<base>.ts` from one JSON Schema file. */
export async function schemaFileStep(root: string, step: SchemaFileStep): Promise<GeneratedFile[]> {
  const schema = JSON.parse(await readFile(path.join(root, step.schemaFile), 'utf8')) as Record<string, unknown>;
  const sources = [step.schemaFile];
  const validatorName = `validate${step.typeName}`;

  const types = await compile(annotateConstraints(schema) as JSONSchema, step.typeName, {
    bannerComment: '',
    additionalProperties: false,
    declareExternallyReferenced: true,
    unknownAny: true,
    cwd: path.join(root, 'specs'),
    format: true,
  });

  const ajv = new Ajv2020(ajvOptions());
  ajv.addSchema(schema);
  const { imports, body, functionOf } = standaloneFunctions(ajv, { [validatorName]: String(schema.$id) });
  const validator = [
    '// @ts-nocheck -- ajv standalone output is untyped JavaScript; the export below carries the type.',
    `import type { ${step.typeName} } from '../types/${step.fileBase}.ts';`,
    "import type { Validator } from './validator.ts';",
    ...imports,
    body,
    `/** Validates a${/^[AEIOU]/.test(step.typeName) ? 'n' : ''} ${step.typeName} against ${step.schemaFile} (JSON Schema 2020-12). */`,
    `export const ${validatorName}: Validator<${step.typeName}> = ${functionOf[validatorName]};`,
  ].join('\n');

  return [
    { path: `types/${step.fileBase}.ts`, sources, content: types },
    { path: `validators/${step.fileBase}.ts`, sources, content: prettyPrintScript(validator) },
  ];
}

/** `generated/types/schema-manifest.ts` and `generated/validators/schema-manifest.ts` from the manifest JSON Schema. */
export function manifestStep(root: string): Promise<GeneratedFile[]> {
  return schemaFileStep(root, { schemaFile: MANIFEST_SCHEMA, typeName: 'SchemaManifest', fileBase: 'schema-manifest' });
}

const CONSTRAINTS = ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern'] as const;

/**
 * A copy of the schema whose property descriptions end with JSDoc tags for their constraints, so the
 * generated type documents them (json-schema-to-typescript drops them otherwise) and changes when they do.
 */
export function annotateConstraints(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(schema);
  const properties = (copy.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const property of Object.values(properties)) {
    const tags = CONSTRAINTS.filter((key) => property[key] !== undefined).map((key) => `@${key} ${String(property[key]).replace(/\*\//g, '*\\/')}`);
    if (tags.length > 0) property.description = [property.description, ...tags].filter((x) => x !== undefined).join('\n');
  }
  return copy;
}
