import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import { WriteMeter, assertGraphName, type GraphEngine, type GraphView, type MutationInput } from '../engine/index.ts';
import { checkJsonlFile, type CheckedJsonl } from './check-jsonl-file.ts';
import { JsonlFile } from './jsonl-file.ts';
import { atLine, isBlankLine, mutationOf, parseCheckedRecord, type JsonlRecord } from './jsonl-record.ts';
import { IMPORT_BATCH_SIZE } from './constants.ts';

export { IMPORT_BATCH_SIZE };

export interface ImportProgress {
  /** `check`: the first pass, reading the whole file; `commit`: reading it again and committing. */
  readonly phase: 'check' | 'commit';
  readonly bytes: number;
  readonly totalBytes: number;
}

export interface ImportOptions {
  /** Create the graph first (TG_GRAPH_EXISTS when it exists); if a later batch fails, it is dropped again. */
  readonly create?: boolean;
  /** Skip node records already in the graph with the same label and props: finishes an import that stopped. */
  readonly resume?: boolean;
  readonly onProgress?: (progress: ImportProgress) => void;
}

export interface ImportOutcome {
  /** Node and edge records committed (blank lines are not records; skipped records are not counted). */
  readonly records: number;
  readonly nodes: number;
  readonly edges: number;
  /** Node records left out by `resume` because the graph already held them. */
  readonly skipped: number;
  readonly batches: number;
  readonly version: number;
}

/**
 * Imports a JSON Lines file (see parseJsonl for the format) into a graph in two streaming passes.
 * The first checks every line and every rule that depends on the graph (checkJsonlFile), so a bad
 * file changes nothing. The second reads it again and commits IMPORT_BATCH_SIZE mutations per atomic
 * batch (fewer when more would go over the engine's write caps), nodes before edges. Should a batch still fail (a concurrent writer, storage), the error says
 * where it stopped and how many records were committed in which batches; a graph this import created
 * is dropped again. Memory: the file's node ids and one batch, never the file.
 */
export async function importJsonlFile(engine: GraphEngine, graph: string, path: string, options: ImportOptions = {}): Promise<ImportOutcome> {
  assertGraphName(graph);
  const create = options.create ?? false;
  const resume = options.resume ?? false;
  const progress = options.onProgress ?? (() => undefined);
  const file = await JsonlFile.open(path);
  try {
    let view: GraphView | undefined;
    if (create) {
      if (engine.hasGraph(graph)) throw new ToolgraphError('TG_GRAPH_EXISTS', `Graph "${graph}" already exists; import without --create to add to it.`);
    } else {
      if (!engine.hasGraph(graph)) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `No graph is named "${graph}"; import with --create to make it first (toolgraph graph list names the graphs of this store).`);
      view = engine.view(graph);
    }
    const totalBytes = file.identity.size;
    let checked: CheckedJsonl;
    try {
      checked = await checkJsonlFile(file, { view, resume, onBytes: (bytes) => progress({ phase: 'check', bytes, totalBytes }) });
      await file.assertUnchanged();
    } catch (error) {
      throw withSummary(error, 'Nothing was imported.', { committedRecords: 0 });
    }
    if (create) await engine.createGraph(graph);
    try {
      return await commitJsonlFile(engine, graph, file, checked, resume, progress);
    } catch (error) {
      if (!create) {
        const committed = isToolgraphError(error) && error.details?.['committedRecords'] !== 0;
        throw withSummary(error, committed
          ? 'Fix the cause, then import again with --resume to add the rest (records already in the graph are skipped).'
          : 'Fix the cause and import again.', {});
      }
      try {
        await engine.dropGraph(graph);
      } catch (dropError) {
        throw withSummary(error, `Dropping graph "${graph}", which this import created, failed too (${(dropError as Error).message}); drop it by hand.`, {});
      }
      throw withSummary(error, `Graph "${graph}", which this import created, was dropped again, so nothing is left of it.`, { graphDropped: true });
    }
  } finally {
    await file.close();
  }
}

async function commitJsonlFile(
  engine: GraphEngine, graph: string, file: JsonlFile, checked: CheckedJsonl, resume: boolean,
  progress: (progress: ImportProgress) => void,
): Promise<ImportOutcome> {
  // Nodes before edges: in one pass when the file has them in that order, else a pass for each.
  const phases: (JsonlRecord['kind'] | undefined)[] = checked.nodesFirst ? [undefined] : ['node', 'edge'];
  const totalBytes = file.identity.size * phases.length;
  let mutations: MutationInput[] = [];
  let lines: number[] = [];
  let committed = 0;
  let batches = 0;
  let nodes = 0;
  let edges = 0;
  let skipped = 0;
  let firstVersion: number | undefined;
  let version = engine.view(graph).version;
  const limits = engine.writeLimits;
  let meter = limits === null ? null : new WriteMeter(limits);

  const stopped = (error: unknown, line: number | undefined): unknown => {
    const where = line === undefined ? error : atLine(error, file.path, line);
    const done = committed === 0
      ? 'Nothing was committed.'
      : `The import stopped there: ${committed} of ${checked.records - checked.skipped} records were committed, in batches 1-${batches} (graph versions ${firstVersion}-${version}); the rest were not.`;
    return withSummary(where, done, {
      file: file.path, committedRecords: committed, committedBatches: batches,
      ...(firstVersion === undefined ? {} : { fromVersion: firstVersion, toVersion: version }),
    });
  };
  const flush = async (): Promise<void> => {
    if (mutations.length === 0) return;
    try {
      version = (await engine.commit({ graph, mutations })).version;
    } catch (error) {
      const index = isToolgraphError(error) ? error.details?.['index'] : undefined;
      throw stopped(error, typeof index === 'number' ? lines[index] : lines[0]);
    }
    firstVersion ??= version;
    batches++;
    committed += mutations.length;
    mutations = [];
    lines = [];
    if (limits !== null) meter = new WriteMeter(limits);
  };
  /** The next mutation would take the batch over a write cap: commit the batch first, then start the next with it. */
  const startBatchWith = async (mutation: MutationInput, line: number): Promise<void> => {
    await flush();
    const fits = meter!.fits(mutation);
    if (fits) meter!.charge(mutation);
    mutations.push(mutation);
    lines.push(line);
    // Alone over a cap, it is committed alone, so the engine's refusal names its line.
    if (!fits) await flush();
  };

  for (let p = 0; p < phases.length; p++) {
    const phase = phases[p];
    const view = engine.view(graph);
    const offset = p * file.identity.size;
    await file.forEachLine((text, line) => {
      if (isBlankLine(text)) return undefined;
      const record = parseCheckedRecord(text);
      // It passed the first pass, so the file was changed in between.
      if (record === undefined) throw stopped(new ToolgraphError('TG_FILE_UNREADABLE', `${file.path} changed while it was being imported.`), line);
      if (phase !== undefined && record.kind !== phase) return undefined;
      if (record.kind === 'node') {
        if (resume && view.node(record.id) !== undefined) {
          skipped++;
          return undefined;
        }
        nodes++;
      } else {
        edges++;
      }
      const mutation = mutationOf(record);
      // Synchronous while the batch has room: most lines never wait on a promise.
      if (meter === null || meter.fits(mutation)) {
        meter?.charge(mutation);
        mutations.push(mutation);
        lines.push(line);
        return mutations.length >= IMPORT_BATCH_SIZE ? flush() : undefined;
      }
      return startBatchWith(mutation, line);
    }, (bytes) => progress({ phase: 'commit', bytes: offset + bytes, totalBytes }));
  }
  await flush();
  if (nodes + edges + skipped !== checked.records) {
    throw stopped(new ToolgraphError('TG_FILE_UNREADABLE', `${file.path} changed while it was being imported: it had ${checked.records} records when checked, ${nodes + edges + skipped} when committed.`), undefined);
  }
  return { records: committed, nodes, edges, skipped, batches, version };
}

/** Appends a sentence and details to a ToolgraphError (other errors pass through unchanged). */
function withSummary(error: unknown, sentence: string, details: Record<string, unknown>): unknown {
  if (!isToolgraphError(error)) return error;
  return new ToolgraphError(error.code, `${error.message} ${sentence}`, { details: { ...error.details, ...details }, cause: error });
}
