import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { parse } from 'yaml';
import { standaloneFunctions } from './ajv-standalone.ts';
import { prettyPrintScript } from './format.ts';
import type { GeneratedFile } from './generated-file.ts';
import { ajvOptions, MANIFEST_SCHEMA } from './manifest-step.ts';
import { ACCESS_POLICY_SCHEMA } from './access-policy-step.ts';

export const OPENAPI_DOCUMENT = 'specs/tool-server.openapi.yaml';
/** Base URI of the OpenAPI schemas inside ajv; relative `$ref`s (the manifest schema) resolve against it. */
const OPENAPI_ID = 'https://toolgraph.dev/specs/tool-server.openapi.yaml';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;

/** Where a parameter is sent; header and cookie parameters get no validator (no handler reads one as data). */
const PARAMETER_LOCATIONS = ['path', 'query'] as const;
type ParameterLocation = (typeof PARAMETER_LOCATIONS)[number];

/** The path or query parameters of one operation, as one object schema. */
interface ParameterSet {
  /** `<OperationId><Location>Parameters`: the `$defs` name and, with `validate`, the export. */
  name: string;
  operationId: string;
  location: ParameterLocation;
  /** Each parameter's schema, by name, in the document's order. */
  schemas: Record<string, Json>;
  required: string[];
}

interface BodyValidator {
  exportName: string;
  /** The components.schemas entry that types it. */
  component: string;
}

/**
 * `generated/openapi/types.ts` (openapi-typescript), `generated/openapi/parameters.ts` (each operation's
 * parameter schemas, as constants) and `generated/validators/openapi.ts` (ajv standalone: the components,
 * the operation bodies, and each operation's path and query parameters as one object).
 */
export async function openapiStep(root: string): Promise<GeneratedFile[]> {
  const documentPath = path.join(root, OPENAPI_DOCUMENT);
  const document = parse(await readFile(documentPath, 'utf8')) as Json;
  const manifestSchema = JSON.parse(await readFile(path.join(root, MANIFEST_SCHEMA), 'utf8')) as Json;
  const accessSchema = JSON.parse(await readFile(path.join(root, ACCESS_POLICY_SCHEMA), 'utf8')) as Json;
  const sources = [OPENAPI_DOCUMENT, MANIFEST_SCHEMA, ACCESS_POLICY_SCHEMA];

  const ast = await openapiTS(pathToFileURL(documentPath), { alphabetize: true, immutable: false, rootTypes: false, silent: true });
  const types = astToString(optionalDefs(ast));

  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  // An operation body named like a component validator (callTool's request is CallToolRequest) is that validator.
  const bodies = bodyValidators(document, schemas).filter((b) => {
    const component = schemas[b.exportName.replace(/^validate/, '')];
    if (component === undefined) return true;
    if (b.exportName === `validate${b.component}`) return false;
    throw new Error(`${OPENAPI_DOCUMENT}: ${b.exportName} would name both an operation body and the component ${b.exportName.replace(/^validate/, '')}`);
  });
  const parameterSets = operationParameters(document);
  const defs: Json = { ...schemas };
  for (const set of parameterSets) {
    if (defs[set.name] !== undefined) throw new Error(`${OPENAPI_DOCUMENT}: ${set.name} would name both the ${set.location} parameters of ${set.operationId} and a component`);
    defs[set.name] = { type: 'object', properties: set.schemas, ...(set.required.length > 0 ? { required: set.required } : {}) };
  }
  const ajv = new Ajv2020(ajvOptions());
  ajv.addSchema(manifestSchema);
  ajv.addSchema(accessSchema);
  // ajv knows `$defs`, not `components/schemas`; the same schemas under `$defs` keep `#/…` refs meaningful.
  ajv.addSchema({ $id: OPENAPI_ID, $defs: rewriteComponentRefs(defs) });

  const refs: Record<string, string> = {};
  for (const name of Object.keys(schemas).sort()) refs[`validate${name}`] = `${OPENAPI_ID}#/$defs/${name}`;
  for (const set of parameterSets) refs[`validate${set.name}`] = `${OPENAPI_ID}#/$defs/${set.name}`;
  const { imports, body, functionOf } = standaloneFunctions(ajv, refs);
  // Operation bodies reuse their component's function: ajv emits a schema's code once per standalone module.
  for (const b of bodies) functionOf[b.exportName] = functionOf[`validate${b.component}`] ?? '';

  const typed = [
    ...Object.keys(schemas).sort().map((name) => ({ exportName: `validate${name}`, component: name, doc: `Validates a \`${name}\` (components.schemas).` })),
    ...bodies.map((b) => ({ ...b, doc: `Validates the ${b.exportName.endsWith('Request') ? 'request' : 'success response'} body of \`${b.exportName.replace(/^validate|(Request|Response)$/g, '')}\` (\`${b.component}\`).` })),
  ];
  const validator = [
    '// @ts-nocheck -- ajv standalone output is untyped JavaScript; the exports below carry the types.',
    "import type { components, operations } from '../openapi/types.ts';",
    "import type { Validator } from './validator.ts';",
    ...imports,
    body,
    ...typed.flatMap((t) => [
      `/** ${t.doc} */`,
      `export const ${t.exportName}: Validator<components['schemas']['${t.component}']> = ${functionOf[t.exportName]};`,
    ]),
    ...parameterSets.flatMap((set) => [
      `/** Validates the ${set.location} parameters of \`${set.operationId}\` (${Object.keys(set.schemas).map((n) => `\`${n}\``).join(', ')}), as one object. */`,
      `export const validate${set.name}: Validator<NonNullable<operations['${set.operationId}']['parameters']['${set.location}']>> = ${functionOf[`validate${set.name}`]};`,
    ]),
  ].join('\n');

  return [
    { path: 'openapi/types.ts', sources, content: types },
    { path: 'openapi/parameters.ts', sources: [OPENAPI_DOCUMENT], content: parametersFile(parameterSets) },
    { path: 'validators/openapi.ts', sources, content: prettyPrintScript(validator) },
  ];
}

/**
 * openapi-typescript 7.13 types a schema's `$defs` (access-policy.schema.json has one) as a required
 * property of the object (openapi-ts/openapi-typescript#2664), so no policy value fits the generated
 * type. `$defs` never occurs in data: it is made optional, as the fix proposed upstream does.
 */
function optionalDefs(nodes: ts.Node[]): ts.Node[] {
  const result = ts.transform(nodes, [(context) => {
    const visit = (node: ts.Node): ts.Node => {
      const visited = ts.visitEachChild(node, visit, context);
      if (!ts.isPropertySignature(visited) || visited.questionToken !== undefined) return visited;
      if (!ts.isIdentifier(visited.name) || visited.name.text !== '$defs') return visited;
      return ts.factory.updatePropertySignature(visited, visited.modifiers, visited.name, ts.factory.createToken(ts.SyntaxKind.QuestionToken), visited.type);
    };
    return (node) => visit(node);
  }]);
  const out = [...result.transformed];
  result.dispose();
  return out;
}

/**
 * One validator per JSON request body (`validate<OperationId>Request`) and per JSON success response
 * (`validate<OperationId>Response`); error responses all share `validateErrorBody`. Bodies must be `$ref`s
 * to components.schemas so every body type has a name.
 */
function bodyValidators(document: Json, schemas: Record<string, Json>): BodyValidator[] {
  const out: BodyValidator[] = [];
  const paths = (document.paths ?? {}) as Record<string, Json>;
  for (const route of Object.keys(paths).sort()) {
    for (const method of METHODS) {
      const operation = paths[route]?.[method] as Json | undefined;
      if (operation === undefined) continue;
      const id = String(operation.operationId);
      const pascal = id.charAt(0).toUpperCase() + id.slice(1);
      const request = jsonSchemaOf(operation.requestBody as Json | undefined);
      if (request !== undefined) out.push({ exportName: `validate${pascal}Request`, component: componentOf(request, `${method} ${route} request`, schemas) });
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      const success = Object.keys(responses).sort().find((status) => /^2\d\d$/.test(status));
      const response = success === undefined ? undefined : jsonSchemaOf(responses[success]);
      if (response !== undefined) out.push({ exportName: `validate${pascal}Response`, component: componentOf(response, `${method} ${route} ${success}`, schemas) });
    }
  }
  return out;
}

/**
 * The path and query parameters of every operation (path-item parameters included, an operation's own
 * overriding one of the same name and location), `$ref`s to components.parameters resolved.
 */
function operationParameters(document: Json): ParameterSet[] {
  const shared = ((document.components as Json | undefined)?.parameters ?? {}) as Record<string, Json>;
  const resolve = (parameter: Json): Json => {
    if (typeof parameter.$ref !== 'string') return parameter;
    const name = /^#\/components\/parameters\/([A-Za-z0-9_]+)$/.exec(parameter.$ref)?.[1];
    const found = name === undefined ? undefined : shared[name];
    if (found === undefined) throw new Error(`${OPENAPI_DOCUMENT}: unresolvable parameter ${parameter.$ref}`);
    return found;
  };
  const out: ParameterSet[] = [];
  const paths = (document.paths ?? {}) as Record<string, Json>;
  for (const route of Object.keys(paths).sort()) {
    const item = paths[route] ?? {};
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation === undefined) continue;
      const id = String(operation.operationId);
      const all = [...((item.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])].map(resolve);
      for (const location of PARAMETER_LOCATIONS) {
        const byName = new Map<string, Json>();
        for (const parameter of all) if (parameter.in === location) byName.set(String(parameter.name), parameter);
        if (byName.size === 0) continue;
        const schemas: Record<string, Json> = {};
        const required: string[] = [];
        for (const [name, parameter] of byName) {
          schemas[name] = (parameter.schema ?? {}) as Json;
          if (parameter.required === true) required.push(name);
        }
        const name = `${id.charAt(0).toUpperCase()}${id.slice(1)}${location.charAt(0).toUpperCase()}${location.slice(1)}Parameters`;
        out.push({ name, operationId: id, location, schemas, required });
      }
    }
  }
  return out;
}

/** `PARAMETERS[operationId][location][name]`: each parameter's schema, for handlers that read its bounds and default. */
function parametersFile(sets: readonly ParameterSet[]): string {
  const byOperation: Record<string, Record<string, Record<string, Json>>> = {};
  for (const set of sets) (byOperation[set.operationId] ??= {})[set.location] = set.schemas;
  return [
    '/**',
    ` * The path and query parameters of each operation of ${OPENAPI_DOCUMENT}, by operationId and location,`,
    ' * each with its schema as the document writes it: handlers state bounds and defaults from here, and',
    ' * check values with the matching `validate<OperationId><Location>Parameters` of ../validators/openapi.ts.',
    ' */',
    `export const PARAMETERS = ${JSON.stringify(byOperation, null, 2)} as const;`,
    '',
  ].join('\n');
}

function jsonSchemaOf(body: Json | undefined): Json | undefined {
  const content = body?.content as Record<string, Json> | undefined;
  return content?.['application/json']?.schema as Json | undefined;
}

function componentOf(schema: Json, where: string, schemas: Record<string, Json>): string {
  const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(schema.$ref) : null;
  if (ref === null || ref[1] === undefined || schemas[ref[1]] === undefined) {
    throw new Error(`${OPENAPI_DOCUMENT}: the JSON body of ${where} must be a $ref to #/components/schemas/<Name>`);
  }
  return ref[1];
}

function rewriteComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteComponentRefs);
  if (value !== null && typeof value === 'object') {
    const out: Json = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = key === '$ref' && typeof item === 'string' ? item.replace(/^#\/components\/schemas\//, '#/$defs/') : rewriteComponentRefs(item);
    }
    return out;
  }
  return value;
}
