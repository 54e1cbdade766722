import { isToolgraphError } from '../../errors/index.ts';
import type { MutationInput } from '../engine/index.ts';
import { atLine, isBlankLine, mutationOf, parseJsonlRecord } from './jsonl-record.ts';

export interface JsonlMutations {
  /** Node lines first (createNode, in file order), then edge lines (addEdge, in file order). */
  readonly mutations: MutationInput[];
  /** The 1-based line of each mutation, to turn a batch error's `details.index` into a line. */
  readonly lines: number[];
}

/**
 * Reads a graph in JSON Lines held in memory: each non-blank line is a node `{"label","id","props"}`
 * (props optional) or an edge `{"src","tgt","type"}`. Shapes, names, ids and values are checked here,
 * so errors name the source and line; what depends on the graph (duplicates, missing nodes, type
 * clashes) is found when the batch commits: map the error through `withJsonlLine`. Files go through
 * `importJsonlFile`, which streams and checks the graph-dependent rules before committing.
 */
export function parseJsonl(text: string, source = 'input'): JsonlMutations {
  const nodes: MutationInput[] = [];
  const nodeLines: number[] = [];
  const edges: MutationInput[] = [];
  const edgeLines: number[] = [];
  let line = 0;
  for (const row of text.split('\n')) {
    line++;
    if (isBlankLine(row)) continue;
    const record = parseJsonlRecord(row, source, line);
    if (record.kind === 'node') {
      nodes.push(mutationOf(record));
      nodeLines.push(line);
    } else {
      edges.push(mutationOf(record));
      edgeLines.push(line);
    }
  }
  return { mutations: [...nodes, ...edges], lines: [...nodeLines, ...edgeLines] };
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
  return atLine(error, source, line, { index: error.details.index });
}
