import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolgraphError, isToolgraphError } from '../../../errors/index.ts';
import { silentLogger, type Logger } from '../../../log/index.ts';
import { recordJsonSteps, runSliced, type LoadedState, type LogRecord, type PersistenceAdapter, type SnapshotStream } from '../../engine/index.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import { LOCK_FILE, pathIn, segmentFile, snapshotFile } from './log-files.ts';
import { nodeLogFileSystem, type LogFileHandle, type LogFileSystem } from './log-file-system.ts';
import { writeLogHead } from './log-head.ts';
import { firstNeededSeq, recoverLog, type LiveGraph, type Segment } from './log-recovery.ts';
import { encodeFrame } from './record-frame.ts';
import { writeSnapshotFrames } from './snapshot-file.ts';

export interface FilePersistenceOptions {
  /** The folder holding the log, snapshots and lock (`toolgraph serve` uses `<dataDir>/graphs`); created when missing. */
  readonly directory: string;
  readonly logger?: Logger;
  /** Start a new log segment once the current one reaches this size. Default 8 MiB. */
  readonly segmentBytes?: number;
  /** The filesystem the write path uses; tests pass one that records or fails calls. Default: node:fs. */
  readonly fileSystem?: LogFileSystem;
  /**
   * Load even when the log has lost acknowledged records: keep its intact part, move the rest into
   * `lost-<time>/` and log what was lost (TOOLGRAPH_ACCEPT_DATA_LOSS). Default: refuse, naming the file.
   */
  readonly acceptDataLoss?: boolean;
}

interface PendingWrite {
  readonly frame: Buffer;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** Runs once the record is durable, before the append resolves. */
  readonly afterDurable?: () => Promise<void>;
}

const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;
/** One write of a group commit stays below this, so a burst of large batches cannot balloon memory. */
const MAX_GROUP_BYTES = 16 * 1024 * 1024;

/**
 * The embedded persistence adapter: an append-only, checksummed log in segment files plus one snapshot
 * file per graph, under an exclusive lock on the directory.
 *
 * Appends are validated and ordered when called, then written by a single writer that group-commits:
 * every record waiting when a write starts goes out in one write and one fdatasync, and each append
 * resolves only after the fdatasync that covers it. A failed write or sync poisons the adapter (every
 * later call fails with TG_STORAGE_FAILED) since the file's state is then unknown.
 */
export class FilePersistence implements PersistenceAdapter {
  readonly kind = 'file';
  /** The folder holding the log, snapshots and lock. */
  readonly directory: string;
  readonly #logger: Logger;
  readonly #segmentBytes: number;
  readonly #lock: DataDirLock;
  readonly #fs: LogFileSystem;
  readonly #acceptDataLoss: boolean;
  #graphs = new Map<string, LiveGraph>();
  #segments: Segment[] = [];
  #handle: LogFileHandle | undefined;
  #segmentSize = 0;
  /** Sequence numbers the current segment's durable records cover. */
  #segmentSeqs = 0;
  #nextSeq = 1;
  #queue: PendingWrite[] = [];
  #writer: Promise<void> | undefined;
  #compactWanted = false;
  #snapshotChain: Promise<void> = Promise.resolve();
  /** createdSeq of incarnations whose dropGraph is durable: their snapshot files must go. */
  readonly #droppedDurable = new Set<number>();
  #loaded = false;
  #closed = false;
  #failure: unknown;

  private constructor(directory: string, lock: DataDirLock, options: FilePersistenceOptions) {
    this.directory = directory;
    this.#lock = lock;
    this.#logger = options.logger ?? silentLogger();
    this.#segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.#fs = options.fileSystem ?? nodeLogFileSystem;
    this.#acceptDataLoss = options.acceptDataLoss ?? false;
  }

  /** Creates the directory when missing and takes its lock (TG_STORAGE_FAILED naming the holder's pid when taken). */
  static async open(options: FilePersistenceOptions): Promise<FilePersistence> {
    const directory = options.directory;
    try {
      await mkdir(directory, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new ToolgraphError('TG_STORAGE_FAILED', `Could not create the graph data directory ${directory}.`, { cause: error });
    }
    const lock = await acquireDataDirLock(join(directory, LOCK_FILE));
    return new FilePersistence(directory, lock, options);
  }

  async load(): Promise<LoadedState> {
    this.#checkOpen();
    if (this.#loaded) throw new ToolgraphError('TG_STORAGE_FAILED', 'The file persistence adapter was already loaded.');
    try {
      const recovered = await recoverLog(this.directory, this.#logger, { acceptDataLoss: this.#acceptDataLoss });
      this.#graphs = recovered.graphs;
      this.#segments = recovered.segments;
      this.#nextSeq = recovered.nextSeq;
      const last = this.#segments.at(-1);
      if (last) {
        this.#handle = await this.#fs.open(last.path, 'r+');
        this.#segmentSize = recovered.lastSegmentBytes;
        this.#segmentSeqs = recovered.lastSegmentSeqs;
      } else {
        await this.#startSegment(this.#nextSeq);
      }
      this.#loaded = true;
      return recovered.state;
    } catch (error) {
      if (isToolgraphError(error)) throw error;
      throw new ToolgraphError('TG_STORAGE_FAILED', `Could not read the graph log in ${this.directory}.`, { cause: error });
    }
  }

  async append(record: LogRecord): Promise<void> {
    this.#checkWritable();
    // A batch at the write caps is megabytes of JSON: encoded a few mutations at a time, between turns
    // of the event loop. The engine appends one record of a graph at a time, so a graph's records keep
    // their order; records of different graphs may be framed in either order, as they may commit.
    const json = await runSliced(recordJsonSteps(record));
    return this.#appendEncoded(record, json);
  }

  #appendEncoded(record: LogRecord, json: string): Promise<void> {
    try {
      this.#checkWritable();
      const frame = encodeFrame(Buffer.from(json, 'utf8'));
      const afterDurable = this.#claim(record, this.#nextSeq);
      this.#nextSeq++;
      return new Promise<void>((resolve, reject) => {
        this.#queue.push(afterDurable ? { frame, resolve, reject, afterDurable } : { frame, resolve, reject });
        void this.#startWriter();
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  writeSnapshot(snapshot: SnapshotStream): Promise<void> {
    try {
      this.#checkWritable();
    } catch (error) {
      return Promise.reject(error);
    }
    const run = this.#snapshotChain.then(() => this.#storeSnapshot(snapshot));
    this.#snapshotChain = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#snapshotChain;
    await this.#writer;
    await this.#handle?.close().catch(() => undefined);
    this.#handle = undefined;
    await this.#lock.release();
  }

  // ---- validation and ordering (synchronous, at call time) -------------------------------------

  /** Checks the record against the state including earlier, not yet durable appends, and applies it. */
  #claim(record: LogRecord, seq: number): (() => Promise<void>) | undefined {
    switch (record.kind) {
      case 'createGraph':
        if (this.#graphs.has(record.graph)) throw new ToolgraphError('TG_GRAPH_EXISTS', `Graph "${record.graph}" already exists.`);
        this.#graphs.set(record.graph, { createdSeq: seq, version: 0, snapVersion: -1, versions: [], seqs: [] });
        return undefined;
      case 'dropGraph': {
        const live = this.#graphs.get(record.graph);
        if (!live) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `Graph "${record.graph}" does not exist.`);
        this.#graphs.delete(record.graph);
        return () => this.#forgetSnapshot(live.createdSeq);
      }
      case 'batch': {
        const { graph, version } = record.batch;
        const live = this.#graphs.get(graph);
        if (!live) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', `Graph "${graph}" does not exist.`);
        if (!Number.isSafeInteger(version) || version <= live.version) {
          throw new ToolgraphError('TG_VERSION_CONFLICT', `Graph "${graph}" already has version ${version}; it is at version ${live.version}.`);
        }
        live.version = version;
        if (live.snapVersion >= 0) {
          live.versions.push(version);
          live.seqs.push(seq);
        }
        return undefined;
      }
    }
  }

  // ---- the single writer --------------------------------------------------------------------------

  #startWriter(): Promise<void> {
    if (this.#writer) return this.#writer;
    this.#writer = this.#runWriter().finally(() => {
      this.#writer = undefined;
      // Appends that arrived while the loop was finishing still need a writer.
      if (this.#queue.length > 0 || this.#compactWanted) void this.#startWriter();
    });
    return this.#writer;
  }

  async #runWriter(): Promise<void> {
    while (this.#failure === undefined && (this.#queue.length > 0 || this.#compactWanted)) {
      try {
        if (this.#queue.length > 0) await this.#writeGroup();
        else {
          this.#compactWanted = false;
          await this.#compact();
        }
      } catch (error) {
        this.#fail(error);
      }
    }
  }

  async #writeGroup(): Promise<void> {
    if (this.#segmentSize >= this.#segmentBytes) {
      const sealed = { first: this.#segments.at(-1)!.id, records: this.#segmentSeqs, bytes: this.#segmentSize };
      // The first waiting record gets the next sequence number not yet in a segment.
      const newest = this.#nextSeq - this.#queue.length;
      await this.#startSegment(newest);
      // Only once the new segment is durable may LOG-HEAD say the log goes on into it.
      await writeLogHead(this.#fs, this.directory, { newest, sealed });
      this.#compactWanted = true;
    }
    let bytes = 0;
    let count = 0;
    while (count < this.#queue.length && (count === 0 || bytes + this.#queue[count]!.frame.length <= MAX_GROUP_BYTES)) {
      bytes += this.#queue[count]!.frame.length;
      count++;
    }
    const group = this.#queue.splice(0, count);
    const data = group.length === 1 ? group[0]!.frame : Buffer.concat(group.map((w) => w.frame), bytes);
    const handle = this.#handle!;
    try {
      await writeFully(handle, data, this.#segmentSize);
      await handle.datasync();
    } catch (error) {
      for (const w of group) w.reject(storageFailed('Could not write to the graph log', error));
      throw error;
    }
    this.#segmentSize += data.length;
    this.#segmentSeqs += group.length;
    for (const w of group) {
      if (w.afterDurable) await w.afterDurable().catch((error: unknown) => this.#logger.warn({ err: error }, 'graph log housekeeping failed'));
      w.resolve();
    }
  }

  async #startSegment(firstSeq: number): Promise<void> {
    const path = pathIn(this.directory, segmentFile(firstSeq));
    const handle = await this.#fs.open(path, 'wx', 0o600);
    await this.#handle?.close();
    this.#handle = handle;
    this.#segmentSize = 0;
    this.#segmentSeqs = 0;
    this.#segments.push({ id: firstSeq, path });
    // The new file's directory entry must be durable before an fdatasync of it means anything.
    await this.#fs.syncDirectory(this.directory);
  }

  /**
   * Removes segments that no live graph needs: everything before each graph's createGraph or, once
   * it has a snapshot, before its first batch after the snapshot. Runs only with no write waiting,
   * so every claimed record is durable.
   */
  async #compact(): Promise<void> {
    let keepFrom = Number.POSITIVE_INFINITY;
    for (const graph of this.#graphs.values()) keepFrom = Math.min(keepFrom, firstNeededSeq(graph));
    const removable: Segment[] = [];
    for (let i = 0; i + 1 < this.#segments.length && this.#segments[i + 1]!.id <= keepFrom; i++) removable.push(this.#segments[i]!);
    if (removable.length === 0) return;
    // Snapshot renames and removals before the segments that stood in for them.
    await this.#fs.syncDirectory(this.directory);
    for (const segment of removable) await this.#fs.unlink(segment.path);
    this.#segments.splice(0, removable.length);
    await this.#fs.syncDirectory(this.directory);
  }

  // ---- snapshots ---------------------------------------------------------------------------------

  /**
   * Streams the snapshot into `snap-….snap.tmp` chunk by chunk (writes of about 1 MiB; appends go on
   * meanwhile, since they use another file and another queue), fsyncs it, renames it into place and
   * fsyncs the directory. A crash before the rename leaves only a .tmp file, which recovery removes.
   */
  async #storeSnapshot(stream: SnapshotStream): Promise<void> {
    this.#checkWritable();
    const snapshot = stream.header;
    const live = this.#graphs.get(snapshot.graph);
    if (!live || snapshot.version > live.version || snapshot.version <= live.snapVersion) return;
    const createdSeq = live.createdSeq;
    // The log holds at least this much now (the snapshot's version is among it): recovery refuses a log
    // that ends before it.
    const loggedThrough = this.#segments.at(-1)!.id + this.#segmentSeqs - 1;
    const name = snapshotFile(createdSeq);
    const path = pathIn(this.directory, name);
    const temp = `${path}.tmp`;
    try {
      const handle = await this.#fs.open(temp, 'w', 0o600);
      try {
        await writeSnapshotFrames(handle, createdSeq, stream, loggedThrough);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.#fs.rename(temp, path);
      await this.#fs.syncDirectory(this.directory);
    } catch (error) {
      await this.#fs.unlink(temp).catch(() => undefined);
      throw storageFailed('Could not write a graph snapshot', error);
    }
    if (this.#droppedDurable.has(createdSeq)) {
      // The graph was dropped while we wrote: the file must not outlive it.
      await this.#fs.unlink(path).catch(() => undefined);
      return;
    }
    const now = this.#graphs.get(snapshot.graph);
    if (now?.createdSeq !== createdSeq || snapshot.version <= now.snapVersion) return;
    if (now.snapVersion < 0) {
      now.versions = [];
      now.seqs = [];
    }
    now.snapVersion = snapshot.version;
    let cut = 0;
    while (cut < now.versions.length && now.versions[cut]! <= snapshot.version) cut++;
    now.versions.splice(0, cut);
    now.seqs.splice(0, cut);
    this.#compactWanted = true;
    void this.#startWriter();
  }

  async #forgetSnapshot(createdSeq: number): Promise<void> {
    this.#droppedDurable.add(createdSeq);
    try {
      await this.#fs.unlink(pathIn(this.directory, snapshotFile(createdSeq)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  // ---- state checks ---------------------------------------------------------------------------------

  #fail(error: unknown): void {
    this.#failure = error;
    this.#logger.error({ err: error }, 'the graph log could not be written; refusing further writes until restart');
    const waiting = this.#queue.splice(0);
    for (const w of waiting) w.reject(storageFailed('An earlier write to the graph log failed', error));
  }

  failure(): string | undefined {
    if (this.#failure === undefined) return undefined;
    const code = (this.#failure as { code?: unknown }).code;
    return `the graph log could not be written (${typeof code === 'string' ? code.slice(0, 40) : 'an I/O error'}); every write is refused until restart`;
  }

  #checkOpen(): void {
    if (this.#closed) throw new ToolgraphError('TG_STORAGE_FAILED', 'The file persistence adapter is closed.');
  }

  #checkWritable(): void {
    this.#checkOpen();
    if (!this.#loaded) throw new ToolgraphError('TG_STORAGE_FAILED', 'The file persistence adapter must be loaded before it is written to.');
    if (this.#failure !== undefined) throw storageFailed('An earlier write to the graph log failed; restart to recover', this.#failure);
  }
}

/** Writes all of `data` at `position` (a write may take less than asked). */
async function writeFully(handle: LogFileHandle, data: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written, position + written);
    written += bytesWritten;
  }
}

function storageFailed(message: string, cause: unknown): ToolgraphError {
  const reason = cause instanceof Error ? `: ${cause.message}` : '';
  return new ToolgraphError('TG_STORAGE_FAILED', `${message}${reason}.`, { cause });
}
