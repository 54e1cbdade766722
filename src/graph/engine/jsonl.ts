import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import { assertGraphqlName, assertNodeId, describe } from './names.ts';
import { kindOf } from './property-values.ts';
import type { MutationInput, Properties } from './types.ts';

export interface JsonlMutations {
  /** Node lines first (createNode, in file order), then edge lines (addEdge, in file order). */
  readonly mutations: MutationInput[];
  /** The 1-based line of each mutation, to turn a batch error's `details.index` into a line. */
  readonly lines: number[];
}

const NODE_KEYS = ['label', 'id', 'props'];
const EDGE_KEYS = ['src', 'tgt', 'type'];

/**
 * Reads a graph in JSON Lines: each non-blank line is a node `{"label","id","props"}` (props
 * optional) or an edge `{"src","tgt","type"}`. Shapes, names, ids and values are checked here, so
 * errors name the source and line; what depends on the graph (duplicates, missing nodes, type
 * clashes) is found when the batch commits: map `details.index` through `lines`.
 */
export function parseJsonl(text: string, source = 'input'): JsonlMutations {
  const nodes: { m: MutationInput; line: number }[] = [];
  const edges: { m: MutationInput; line: number }[] = [];
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!.trim();
    if (row === '') continue;
    const where = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(row);
    } catch (error) {
      throw new ToolgraphError('TG_BAD_REQUEST', `${where}: not valid JSON (${(error as Error).message}).`, { details: { line: i + 1 } });
    }
    try {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new ToolgraphError('TG_BAD_REQUEST', `expected a node {"label","id","props"} or an edge {"src","tgt","type"}; got ${describe(value)}.`);
      }
      const record = value as Record<string, unknown>;
      const isEdge = 'src' in record;
      const allowed = isEdge ? EDGE_KEYS : NODE_KEYS;
      for (const key of Object.keys(record)) {
        if (!allowed.includes(key)) {
          throw new ToolgraphError('TG_BAD_REQUEST', `a ${isEdge ? 'edge' : 'node'} line takes ${allowed.join(', ')}; got an unknown field ${describe(key)}.`);
        }
      }
      if (isEdge) {
        assertNodeId(record.src);
        assertNodeId(record.tgt);
        assertGraphqlName('edge type', record.type);
        edges.push({ m: { op: 'addEdge', src: record.src, tgt: record.tgt, type: record.type }, line: i + 1 });
      } else {
        assertGraphqlName('label', record.label);
        assertNodeId(record.id);
        const props = record.props ?? {};
        if (typeof props !== 'object' || props === null || Array.isArray(props)) {
          throw new ToolgraphError('TG_BAD_REQUEST', `props: expected an object of property values; got ${describe(props)}.`);
        }
        for (const [name, v] of Object.entries(props)) {
          assertGraphqlName('property name', name);
          kindOf(v, `props.${name}`);
        }
        nodes.push({ m: { op: 'createNode', id: record.id, label: record.label, props: props as Properties }, line: i + 1 });
      }
    } catch (error) {
      if (isToolgraphError(error)) throw new ToolgraphError(error.code, `${where}: ${error.message}`, { details: { line: i + 1 }, cause: error });
      throw error;
    }
  }
  const all = [...nodes, ...edges];
  return { mutations: all.map((e) => e.m), lines: all.map((e) => e.line) };
}

/** The mutations of a JSON Lines graph (see parseJsonl). */
export function loadJsonl(text: string, source = 'input'): MutationInput[] {
  return parseJsonl(text, source).mutations;
}

/** Rewrites a batch error from committing parsed JSON Lines so that it names the line. */
export function withJsonlLine(error: unknown, parsed: JsonlMutations, source = 'input'): unknown {
  if (!isToolgraphError(error) || typeof error.details?.index !== 'number') return error;
  const line = parsed.lines[error.details.index];
  if (line === undefined) return error;
  const message = error.message.replace(/^mutations\[\d+\]: /, '');
  return new ToolgraphError(error.code, `${source}:${line}: ${message}`, { details: { ...error.details, line }, cause: error });
}
