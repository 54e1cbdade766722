import type { GeneratedFile } from './generated-file.ts';
import { schemaFileStep } from './manifest-step.ts';

export const ACCESS_POLICY_SCHEMA = 'specs/access-policy.schema.json';

/**
 * `generated/types/access-policy.ts` and `generated/validators/access-policy.ts` from the access
 * policy JSON Schema, exactly as the manifest schema is handled (src/graph/access validates every
 * policy with it before storing one).
 */
export function accessPolicyStep(root: string): Promise<GeneratedFile[]> {
  return schemaFileStep(root, { schemaFile: ACCESS_POLICY_SCHEMA, typeName: 'AccessPolicy', fileBase: 'access-policy' });
}
