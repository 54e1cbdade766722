import type { SchemaManifest } from '../../generated/types/schema-manifest.ts';
import { ToolgraphError, type ErrorCode } from '../errors/index.ts';
import { assertSourceName, assignAliases } from './alias.ts';
import { canonicalSchema, type CanonicalSchema } from './canonical-schema.ts';
import { fieldNamesOf } from './field-names.ts';
import { fragmentCount } from './fragments.ts';
import { MAX_SCHEMA_BYTES } from './limits.ts';
import { operationNameError, operationNameProblem } from './operation-name.ts';
import type { SchemaDocument } from './schema-document.ts';
import type { OperationSchema, SchemaSource } from './schema-source.ts';

/** The URL-independent part of a manifest: everything but `manifest_uri` and `fragment_uri_template`. */
export type ManifestCore = Omit<SchemaManifest, 'manifest_uri' | 'fragment_uri_template'>;

/** One operation of the catalogue: its manifest core, the canonical bytes, and what search reads. */
export interface CatalogueEntry {
  readonly source: string;
  readonly description: string;
  /** Property and type names of the input and output schemas. */
  readonly fields: readonly string[];
  readonly manifest: ManifestCore;
  /** The canonical schema document (the bytes the fragments are cut from). */
  readonly document: SchemaDocument;
}

/** An operation left out of the catalogue, and why. */
export interface OperationProblem {
  readonly source: string;
  readonly operation: string;
  readonly code: Extract<ErrorCode, 'TG_OPERATION_NAME_INVALID' | 'TG_SCHEMA_TOO_LARGE'>;
  readonly reason: string;
}

export interface BuiltEntries {
  readonly entries: CatalogueEntry[];
  readonly problems: OperationProblem[];
}

/**
 * Canonicalises every operation of a source. Operations whose names break the SchemaManifest rule, or
 * whose canonical document is over 16 MiB, are returned as problems (never renamed or truncated).
 */
export function buildCatalogueEntries(source: SchemaSource): BuiltEntries {
  assertSourceName(source.name);
  const problems: OperationProblem[] = [];
  const accepted: { op: OperationSchema; canonical: CanonicalSchema }[] = [];
  for (const op of source.operations) {
    const nameProblem = operationNameProblem(op.operation);
    if (nameProblem !== undefined) {
      problems.push({ source: source.name, operation: op.operation, code: 'TG_OPERATION_NAME_INVALID', reason: nameProblem });
      continue;
    }
    const canonical = canonicalSchema(op);
    if (canonical.document.length > MAX_SCHEMA_BYTES) {
      problems.push({ source: source.name, operation: op.operation, code: 'TG_SCHEMA_TOO_LARGE', reason: `canonical schema is ${canonical.document.length} bytes, over ${MAX_SCHEMA_BYTES}` });
      continue;
    }
    accepted.push({ op, canonical });
  }
  const entries = entriesOf(source.name, source.sourceSha256, accepted.map(({ op, canonical }) => ({
    operation: op.operation,
    description: op.description,
    fields: fieldNamesOf(op.input, op.output),
    document: canonical.document,
    schemaSha256: canonical.schemaSha256,
    inputSchemaSha256: canonical.inputSchemaSha256,
    outputSchemaSha256: canonical.outputSchemaSha256,
  })));
  return { entries, problems };
}

/** An operation whose canonical document and digests are made (its name and size checked). */
export interface CanonicalOperation {
  readonly operation: string;
  readonly description: string;
  readonly fields: readonly string[];
  readonly document: SchemaDocument;
  readonly schemaSha256: string;
  readonly inputSchemaSha256: string;
  readonly outputSchemaSha256: string;
}

/** The entries of a source's accepted operations, with their aliases (which depend on the whole source). */
export function entriesOf(source: string, sourceSha256: string, operations: readonly CanonicalOperation[]): CatalogueEntry[] {
  const aliases = assignAliases(source, operations.map((op) => ({ operation: op.operation, schemaSha256: op.schemaSha256 })));
  return operations.map((op, index): CatalogueEntry => ({
    source,
    description: op.description.replace(/\s+/g, ' ').trim(),
    fields: op.fields,
    document: op.document,
    manifest: {
      version: 1,
      operation: op.operation,
      alias: aliases[index]!,
      source_sha256: sourceSha256,
      schema_sha256: op.schemaSha256,
      input_schema_sha256: op.inputSchemaSha256,
      output_schema_sha256: op.outputSchemaSha256,
      schema_bytes: op.document.length,
      fragment_count: fragmentCount(op.document.length),
    },
  }));
}

/** As buildCatalogueEntries, but any problem fails the build: the codegen-time form. */
export function buildCatalogueEntriesStrict(source: SchemaSource): CatalogueEntry[] {
  const { entries, problems } = buildCatalogueEntries(source);
  throwOnProblems(problems);
  return entries;
}

/** Throws one error for a list of problems: TG_OPERATION_NAME_INVALID naming every bad name first. */
function throwOnProblems(problems: readonly OperationProblem[]): void {
  const names = problems.filter((p) => p.code === 'TG_OPERATION_NAME_INVALID');
  if (names.length > 0) throw operationNameError(names);
  const large = problems.find((p) => p.code === 'TG_SCHEMA_TOO_LARGE');
  if (large) {
    throw new ToolgraphError('TG_SCHEMA_TOO_LARGE', `${large.source}: operation ${large.operation}: ${large.reason}.`, {
      details: { source: large.source, operation: large.operation },
    });
  }
}
