import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { standaloneFunctions } from './ajv-standalone.ts';
import { prettyPrintScript } from './format.ts';
import type { GeneratedFile } from './generated-file.ts';
import { ajvOptions } from './manifest-step.ts';

/** One JSON file per tool (an agent with actions); `family: true` marks a template that config instantiates. */
export const TOOLS_DIR = 'specs/tools';
export const TOOL_SOURCES = `${TOOLS_DIR}/*.json`;

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const ACTION_NAME = /^[a-z][a-z0-9_]{0,63}$/;

type Json = Record<string, unknown>;

interface ActionSpec {
  readonly name: string;
  readonly description: string;
  readonly input: Json;
  readonly output: Json;
}

interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly family: boolean;
  readonly actions: readonly ActionSpec[];
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const pascal = (name: string) => name.split('_').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');

/** Reads and checks every tool file: a name equal to the file's, a description, actions with object input and output schemas. */
export async function readToolSpecs(root: string): Promise<ToolSpec[]> {
  const dir = path.join(root, TOOLS_DIR);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const specs: ToolSpec[] = [];
  for (const file of files) {
    const where = `${TOOLS_DIR}/${file}`;
    const raw = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as unknown;
    if (!isObject(raw)) throw new Error(`${where}: expected a JSON object`);
    const { name, description, family, actions } = raw;
    if (typeof name !== 'string' || !TOOL_NAME.test(name) || `${name}.json` !== file) throw new Error(`${where}: "name" must match ${TOOL_NAME.source} and the file name`);
    if (typeof description !== 'string' || description === '') throw new Error(`${where}: "description" must be a non-empty string`);
    if (family !== undefined && typeof family !== 'boolean') throw new Error(`${where}: "family" must be a boolean`);
    if (!isObject(actions) || Object.keys(actions).length === 0) throw new Error(`${where}: "actions" must be an object with at least one action`);
    const unknown = Object.keys(raw).filter((k) => !['name', 'description', 'family', 'actions'].includes(k));
    if (unknown.length > 0) throw new Error(`${where}: unknown keys ${unknown.join(', ')}`);
    const list: ActionSpec[] = [];
    for (const actionName of Object.keys(actions).sort()) {
      const action = actions[actionName];
      const at = `${where} actions.${actionName}`;
      if (!ACTION_NAME.test(actionName)) throw new Error(`${at}: action names must match ${ACTION_NAME.source}`);
      if (!isObject(action) || typeof action.description !== 'string' || action.description === '') throw new Error(`${at}: needs a "description"`);
      if (!isObject(action.input) || action.input.type !== 'object') throw new Error(`${at}: "input" must be a JSON Schema of type object`);
      if (!isObject(action.output) || action.output.type !== 'object') throw new Error(`${at}: "output" must be a JSON Schema of type object`);
      // The action discriminator is the call's own; an action's input may not define it too.
      if (isObject(action.input.properties) && 'action' in action.input.properties) throw new Error(`${at}: "input" may not define the property "action"`);
      list.push({ name: actionName, description: action.description, input: action.input, output: action.output });
    }
    specs.push({ name, description, family: family === true, actions: list });
  }
  if (specs.length === 0) throw new Error(`${TOOLS_DIR}: no tool files`);
  return specs;
}

/**
 * `generated/tools/definitions.ts` (the tool and action definitions, schemas inlined),
 * `generated/types/tools.ts` (input and output types) and `generated/validators/tools.ts` (one ajv
 * standalone validator per action input, compiled here, never at request time).
 */
export async function toolsStep(root: string): Promise<GeneratedFile[]> {
  const specs = await readToolSpecs(root);
  const sources = [TOOL_SOURCES];

  const typeBlocks: string[] = [];
  for (const tool of specs) {
    for (const action of tool.actions) {
      for (const [part, schema] of [['Input', action.input], ['Output', action.output]] as const) {
        const typeName = `${pascal(tool.name)}${pascal(action.name)}${part}`;
        typeBlocks.push(await compile({ ...(markUntyped(schema) as Json), title: typeName } as JSONSchema, typeName, {
          bannerComment: '',
          additionalProperties: false,
          declareExternallyReferenced: true,
          unknownAny: true,
          format: true,
        }));
      }
    }
  }

  const ajv = new Ajv2020(ajvOptions());
  const refs: Record<string, string> = {};
  for (const tool of specs) {
    for (const action of tool.actions) {
      const key = `urn:toolgraph:tools:${tool.name}:${action.name}:input`;
      ajv.addSchema(action.input, key);
      refs[`validate${pascal(tool.name)}${pascal(action.name)}Input`] = key;
    }
  }
  const { imports, body, functionOf } = standaloneFunctions(ajv, refs);
  const typeImports = specs.flatMap((t) => t.actions.map((a) => `${pascal(t.name)}${pascal(a.name)}Input`));
  const validator = [
    '// @ts-nocheck -- ajv standalone output is untyped JavaScript; the exports below carry the types.',
    `import type { ${typeImports.join(', ')} } from '../types/tools.ts';`,
    "import type { Validator } from './validator.ts';",
    ...imports,
    body,
    ...specs.flatMap((t) => t.actions.flatMap((a) => {
      const exportName = `validate${pascal(t.name)}${pascal(a.name)}Input`;
      return [
        `/** Validates the arguments of ${t.name}.${a.name} (${TOOLS_DIR}/${t.name}.json). */`,
        `export const ${exportName}: Validator<${pascal(t.name)}${pascal(a.name)}Input> = ${functionOf[exportName]};`,
      ];
    })),
    '/** Every action input validator, by tool and action name. */',
    'export const TOOL_INPUT_VALIDATORS = {',
    ...specs.map((t) => `  ${t.name}: { ${t.actions.map((a) => `${a.name}: validate${pascal(t.name)}${pascal(a.name)}Input`).join(', ')} },`),
    '} as const;',
  ].join('\n');

  const definitions = [
    "/** A JSON Schema, as the tool files write it. */",
    'export type ToolJsonSchema = Readonly<Record<string, unknown>>;',
    '',
    'export interface ToolActionDefinition {',
    '  readonly description: string;',
    '  readonly input: ToolJsonSchema;',
    '  readonly output: ToolJsonSchema;',
    '}',
    '',
    'export interface ToolDefinition {',
    '  readonly name: string;',
    '  readonly description: string;',
    '  /** A template: configuration instantiates it under other names (the http agents). */',
    '  readonly family: boolean;',
    '  readonly actions: Readonly<Record<string, ToolActionDefinition>>;',
    '}',
    '',
    `/** Every tool of ${TOOLS_DIR}/, actions in name order. */`,
    'export const TOOL_DEFINITIONS = {',
    ...specs.map((t) => `  ${t.name}: ${JSON.stringify({
      name: t.name,
      description: t.description,
      family: t.family,
      actions: Object.fromEntries(t.actions.map((a) => [a.name, { description: a.description, input: a.input, output: a.output }])),
    })},`),
    '} as const satisfies Readonly<Record<string, ToolDefinition>>;',
    '',
    'export type ToolName = keyof typeof TOOL_DEFINITIONS;',
  ].join('\n');

  return [
    { path: 'tools/definitions.ts', sources, content: prettyPrintScript(definitions) },
    { path: 'types/tools.ts', sources, content: typeBlocks.join('\n') },
    { path: 'validators/tools.ts', sources, content: prettyPrintScript(validator) },
  ];
}

const SHAPE_KEYWORDS = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref', 'properties', 'items'];

/**
 * A copy in which every subschema that says nothing about its shape (`{"description": …}`: any JSON
 * value) is typed `unknown`; json-schema-to-typescript would make it an object type otherwise.
 */
function markUntyped(value: unknown, isSchema = true): unknown {
  if (Array.isArray(value)) return value.map((item) => markUntyped(item, isSchema));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'properties' && isObject(item)) out[key] = Object.fromEntries(Object.entries(item).map(([k, v]) => [k, markUntyped(v)]));
    else if (['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf'].includes(key)) out[key] = markUntyped(item);
    else out[key] = item;
  }
  if (isSchema && !SHAPE_KEYWORDS.some((k) => k in value)) out['tsType'] = 'unknown';
  return out;
}
