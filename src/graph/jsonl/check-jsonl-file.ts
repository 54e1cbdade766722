import { ToolgraphError, describeValue } from '../../errors/index.ts';
import type { GraphView, NodeRecord, Properties } from '../engine/index.ts';
import type { JsonlFile } from './jsonl-file.ts';
import { atLine, isBlankLine, parseJsonlRecord } from './jsonl-record.ts';
import { TypeProbe } from './type-probe.ts';

/** What the first pass learnt about a file that passed every check. */
export interface CheckedJsonl {
  /** Node and edge records (blank lines are not records). */
  readonly records: number;
  readonly nodes: number;
  readonly edges: number;
  /** Node records already in the graph with the same label and props (only with `resume`). */
  readonly skipped: number;
  readonly blankLines: number;
  /** No node record comes after an edge record, so one pass in file order commits nodes before their edges. */
  readonly nodesFirst: boolean;
}

export interface CheckOptions {
  /** The graph the file goes into, or undefined for a graph the import will create. */
  readonly view: GraphView | undefined;
  /** Node records already in the graph unchanged are counted as skipped instead of refused. */
  readonly resume: boolean;
  readonly onBytes?: (bytes: number) => void;
}

/**
 * The first, streaming pass of an import: parses and checks every line (shape, names, ids, values)
 * and every rule that depends on the graph as it is now: node ids unique in the file and new to the
 * graph, edge endpoints in the file or the graph, property types consistent within the file and with
 * the graph. It holds the file's node ids (and the endpoints of edges that come before their nodes),
 * never the records. The first problem is thrown with `file:line`.
 */
export async function checkJsonlFile(file: JsonlFile, options: CheckOptions): Promise<CheckedJsonl> {
  const { view, resume } = options;
  const graphName = view === undefined ? 'the new graph' : `graph "${view.name}"`;
  const ids = new Set<string>();
  /** Edges naming a node that is neither in the graph nor (so far) in the file. */
  const unresolved: { src: string; tgt: string; line: number }[] = [];
  const probe = await TypeProbe.start(view?.catalogue);
  let nodes = 0;
  let edges = 0;
  let skipped = 0;
  let blankLines = 0;
  let nodesFirst = true;
  const inGraph = (id: string): NodeRecord | undefined => view?.node(id);
  try {
    await file.forEachLine((text, line) => {
      if (isBlankLine(text)) {
        blankLines++;
        return undefined;
      }
      const record = parseJsonlRecord(text, file.path, line);
      if (record.kind === 'edge') {
        edges++;
        if (!(ids.has(record.src) || inGraph(record.src)) || !(ids.has(record.tgt) || inGraph(record.tgt))) {
          unresolved.push({ src: record.src, tgt: record.tgt, line });
        }
        return undefined;
      }
      nodes++;
      if (edges > 0) nodesFirst = false;
      const known = ids.size;
      if (ids.add(record.id).size === known) return duplicateInFile(file, record.id, line);
      const existing = inGraph(record.id);
      if (existing !== undefined) {
        if (!resume) {
          throw new ToolgraphError('TG_NODE_EXISTS',
            `${file.path}:${line}: a node with id ${describeValue(record.id)} already exists in ${graphName}; to finish an import that stopped part-way, import again with --resume.`,
            { details: { line, id: record.id } });
        }
        if (existing.label !== record.label || !sameProps(existing.props, record.props)) {
          throw new ToolgraphError('TG_NODE_EXISTS',
            `${file.path}:${line}: a node with id ${describeValue(record.id)} already exists in ${graphName} with ${existing.label === record.label ? 'other properties' : `label ${existing.label}`}, so --resume cannot skip it.`,
            { details: { line, id: record.id } });
        }
        skipped++;
        return undefined;
      }
      const typed = probe.check(record.label, record.props);
      return typed?.catch((error: unknown) => {
        throw atLine(error, file.path, line);
      });
    }, options.onBytes);
  } finally {
    await probe.close();
  }
  for (const edge of unresolved) {
    for (const [field, id] of [['src', edge.src], ['tgt', edge.tgt]] as const) {
      if (!ids.has(id) && inGraph(id) === undefined) {
        throw new ToolgraphError('TG_NODE_NOT_FOUND',
          `${file.path}:${edge.line}: ${field}: no node has id ${describeValue(id)}, neither in the file nor in ${graphName}.`,
          { details: { line: edge.line, id } });
      }
    }
  }
  return { records: nodes + edges, nodes, edges, skipped, blankLines, nodesFirst };
}

/** Reads the file again (only on this error) to name the line the id first appeared on. */
async function duplicateInFile(file: JsonlFile, id: string, line: number): Promise<never> {
  const found = { line: 0 };
  const stop = new Error('found');
  await file.forEachLine((text, at) => {
    if (at >= line) throw stop;
    if (isBlankLine(text)) return;
    const record = parseJsonlRecord(text, file.path, at);
    if (record.kind === 'node' && record.id === id) {
      found.line = at;
      throw stop;
    }
  }).catch(() => undefined);
  throw new ToolgraphError('TG_NODE_EXISTS',
    `${file.path}:${line}: node id ${describeValue(id)} appears twice in the file${found.line > 0 ? ` (first at line ${found.line})` : ''}.`,
    { details: { line, id, ...(found.line > 0 ? { firstLine: found.line } : {}) } });
}

function sameProps(a: Properties, b: Properties): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== null).length) return false;
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
    } else if (x !== y) {
      return false;
    }
  }
  return true;
}
