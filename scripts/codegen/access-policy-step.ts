import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { standaloneFunctions } from './ajv-standalone.ts';
import { prettyPrintScript } from './format.ts';
import type { GeneratedFile } from './generated-file.ts';
import { ajvOptions, annotateConstraints } from './manifest-step.ts';

export const ACCESS_POLICY_SCHEMA = 'specs/access-policy.schema.json';

/**
 * `generated/types/access-policy.ts` and `generated/validators/access-policy.ts` from the access
 * policy JSON Schema, exactly as the manifest schema is handled (src/graph/access validates every
 * policy with it before storing one).
 */
export async function accessPolicyStep(root: string): Promise<GeneratedFile[]> {
  const schema = JSON.parse(await readFile(path.join(root, ACCESS_POLICY_SCHEMA), 'utf8')) as Record<string, unknown>;
  const sources = [ACCESS_POLICY_SCHEMA];

  const types = await compile(annotateConstraints(schema) as JSONSchema, 'AccessPolicy', {
    bannerComment: '',
    additionalProperties: false,
    declareExternallyReferenced: true,
    unknownAny: true,
    cwd: path.join(root, 'specs'),
    format: true,
  });

  const ajv = new Ajv2020(ajvOptions());
  ajv.addSchema(schema);
  const { imports, body, functionOf } = standaloneFunctions(ajv, { validateAccessPolicy: String(schema.$id) });
  const validator = [
    '// @ts-nocheck -- ajv standalone output is untyped JavaScript; the export below carries the type.',
    "import type { AccessPolicy } from '../types/access-policy.ts';",
    "import type { Validator } from './validator.ts';",
    ...imports,
    body,
    '/** Validates an AccessPolicy against specs/access-policy.schema.json (JSON Schema 2020-12). */',
    `export const validateAccessPolicy: Validator<AccessPolicy> = ${functionOf.validateAccessPolicy};`,
  ].join('\n');

  return [
    { path: 'types/access-policy.ts', sources, content: types },
    { path: 'validators/access-policy.ts', sources, content: prettyPrintScript(validator) },
  ];
}
