import type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
import { validateSchemaManifest } from '../../generated/validators/schema-manifest.ts';
import { ToolgraphError } from '../errors/index.ts';
import { fieldViolations } from '../validation/index.ts';

/** True when `value` is a valid SchemaManifest (the generated ajv validator, JSON Schema 2020-12). */
export function isSchemaManifest(value: unknown): value is SchemaManifest {
  return validateSchemaManifest(value);
}

/**
 * Returns `value` typed as a SchemaManifest, or throws TG_MANIFEST_INVALID naming every violation:
 * the JSON pointer of the field, what was expected and what came.
 */
export function assertSchemaManifest(value: unknown): SchemaManifest {
  if (validateSchemaManifest(value)) return value;
  const violations = fieldViolations(validateSchemaManifest.errors);
  const count = violations.length === 1 ? '1 violation' : `${violations.length} violations`;
  throw new ToolgraphError('TG_MANIFEST_INVALID', `SchemaManifest is invalid (${count}): ${violations.map((v) => v.text).join('; ')}.`, {
    details: { violations: violations.map(({ pointer, expected, got }) => ({ pointer, expected, got })) },
  });
}
