import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { ToolgraphError } from '../../../errors/index.ts';
import {
  snapshotStream, type EdgeRecord, type GraphSnapshot, type NodeRecord, type SnapshotChunk, type SnapshotHeader, type SnapshotStream,
} from '../../engine/index.ts';
import type { LogFileHandle } from './log-file-system.ts';
import { FRAME_HEADER_BYTES, MAX_FRAME_PAYLOAD, checkFrame, encodeFrame } from './record-frame.ts';

/**
 * A snapshot file is a sequence of frames (the log's framing, each checksummed):
 *   {"createdSeq":…,"header":{graph,version,at,catalogue}}
 *   {"nodes":[…]} …            every node chunk, then
 *   {"edges":[…]} …            every edge chunk, then
 *   {"end":{"nodes":n,"edges":m}}
 * It is written chunk by chunk and read back chunk by chunk, so neither side holds the graph
 * serialised whole. Files written before snapshots were streamed hold one frame,
 * {"createdSeq":…,"snapshot":GraphSnapshot}; they are still read.
 */

/** Frames are gathered into writes of about this size. */
const WRITE_BYTES = 1024 * 1024;
const READ_BYTES = 1024 * 1024;
/**
 * The file is fdatasynced every this many bytes as it is written, so the final fsync (and the
 * writeback the kernel would otherwise do all at once, which the log's own fdatasyncs can end up
 * waiting behind) has at most this much left to do.
 */
const SYNC_EVERY_BYTES = 32 * 1024 * 1024;

const frameOf = (value: unknown): Buffer => encodeFrame(Buffer.from(JSON.stringify(value), 'utf8'));

/**
 * Writes the whole stream to `handle` (from offset 0) and returns the counts it wrote; the caller syncs.
 * `loggedThrough` is the last record the log held when the snapshot was taken, recorded so recovery can
 * tell a log cut short behind the snapshot from one that simply ended.
 */
export async function writeSnapshotFrames(handle: LogFileHandle, createdSeq: number, stream: SnapshotStream, loggedThrough?: number): Promise<{ nodes: number; edges: number; bytes: number }> {
  let position = 0;
  let synced = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async (): Promise<void> => {
    const data = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written, position + written);
      written += bytesWritten;
    }
    position += data.length;
    if (position - synced >= SYNC_EVERY_BYTES) {
      await handle.datasync();
      synced = position;
    }
  };
  const add = async (frame: Buffer): Promise<void> => {
    pending.push(frame);
    pendingBytes += frame.length;
    if (pendingBytes >= WRITE_BYTES) await flush();
  };
  let nodes = 0;
  let edges = 0;
  await add(frameOf({ createdSeq, ...(loggedThrough !== undefined ? { loggedThrough } : {}), header: stream.header }));
  for await (const chunk of stream.chunks()) {
    if (chunk.kind === 'nodes') {
      nodes += chunk.nodes.length;
      await add(frameOf({ nodes: chunk.nodes }));
    } else {
      edges += chunk.edges.length;
      await add(frameOf({ edges: chunk.edges }));
    }
  }
  await add(frameOf({ end: { nodes, edges } }));
  await flush();
  return { nodes, edges, bytes: position };
}

function corrupt(message: string, file: string): ToolgraphError {
  return new ToolgraphError('TG_STORAGE_CORRUPT', message, { details: { file } });
}

/** Reads a file frame by frame, verifying each frame's checksums, with a bounded buffer. */
class FrameReader {
  readonly #handle: FileHandle;
  readonly #name: string;
  #buf = Buffer.alloc(0);
  #pos = 0;
  #fileOffset = 0;
  #eof = false;

  constructor(handle: FileHandle, name: string) {
    this.#handle = handle;
    this.#name = name;
  }

  /** Makes at least `n` unread bytes available unless the file ends first. */
  async #fill(n: number): Promise<void> {
    while (this.#buf.length - this.#pos < n && !this.#eof) {
      const rest = this.#buf.subarray(this.#pos);
      const next = Buffer.allocUnsafe(rest.length + Math.max(READ_BYTES, n - rest.length));
      rest.copy(next, 0);
      const { bytesRead } = await this.#handle.read(next, rest.length, next.length - rest.length, this.#fileOffset);
      this.#fileOffset += bytesRead;
      if (bytesRead === 0) this.#eof = true;
      this.#buf = next.subarray(0, rest.length + bytesRead);
      this.#pos = 0;
    }
  }

  /** The next frame's payload, undefined at the end of the file; damage is TG_STORAGE_CORRUPT. */
  async next(): Promise<Buffer | undefined> {
    await this.#fill(FRAME_HEADER_BYTES);
    const available = this.#buf.length - this.#pos;
    if (available === 0) return undefined;
    const damaged = (what: string): ToolgraphError =>
      corrupt(`Snapshot file ${this.#name} is damaged (${what}); snapshots are renamed into place only once complete, so this is not a torn write.`, this.#name);
    if (available < FRAME_HEADER_BYTES) throw damaged('incomplete header');
    const header = this.#buf.subarray(this.#pos, this.#pos + FRAME_HEADER_BYTES);
    if (crc32(header.subarray(0, 8)) !== header.readUInt32LE(8)) throw damaged('bad header checksum');
    const length = header.readUInt32LE(0);
    if (length === 0 || length > MAX_FRAME_PAYLOAD) throw damaged('bad header checksum');
    await this.#fill(FRAME_HEADER_BYTES + length);
    const checked = checkFrame(this.#buf, this.#pos);
    if ('damage' in checked) throw damaged(checked.damage);
    const payload = this.#buf.subarray(this.#pos + FRAME_HEADER_BYTES, checked.end);
    this.#pos = checked.end;
    return payload;
  }
}

function parse<T>(payload: Buffer, name: string): T {
  try {
    return JSON.parse(payload.toString('utf8')) as T;
  } catch (error) {
    throw new ToolgraphError('TG_STORAGE_CORRUPT', `Snapshot file ${name} passed its checksum but is not valid JSON.`, { cause: error, details: { file: name } });
  }
}

type FirstFrame = { createdSeq: number; loggedThrough?: number; header?: SnapshotHeader; snapshot?: GraphSnapshot };

/** A snapshot file found by recovery: its first frame only has been read. */
export interface SnapshotFile {
  readonly createdSeq: number;
  /** The last record the log held when the snapshot was taken; undefined in files written before it was recorded. */
  readonly loggedThrough: number | undefined;
  readonly header: SnapshotHeader;
  readonly path: string;
  /** Streams the nodes and edges from the file. */
  readonly stream: SnapshotStream;
}

/** Reads a snapshot file's first frame (createdSeq and header); the rest is read when streamed. */
export async function openSnapshotFile(path: string, name: string): Promise<SnapshotFile> {
  const handle = await open(path, 'r');
  let first: FirstFrame;
  try {
    const payload = await new FrameReader(handle, name).next();
    if (payload === undefined) throw corrupt(`Snapshot file ${name} is empty; snapshots are renamed into place only once complete.`, name);
    first = parse<FirstFrame>(payload, name);
  } finally {
    await handle.close();
  }
  if (first.snapshot !== undefined) {
    // Written whole, before snapshots were streamed.
    const { nodes: _nodes, edges: _edges, ...header } = first.snapshot;
    return { createdSeq: first.createdSeq, loggedThrough: undefined, header, path, stream: snapshotStream(first.snapshot) };
  }
  if (first.header === undefined) throw corrupt(`Snapshot file ${name} does not start with a snapshot header.`, name);
  const header = first.header;
  const loggedThrough = Number.isSafeInteger(first.loggedThrough) ? first.loggedThrough : undefined;
  return { createdSeq: first.createdSeq, loggedThrough, header, path, stream: { header, chunks: () => readChunks(path, name) } };
}

async function* readChunks(path: string, name: string): AsyncGenerator<SnapshotChunk> {
  const handle = await open(path, 'r');
  try {
    const reader = new FrameReader(handle, name);
    await reader.next();
    let nodes = 0;
    let edges = 0;
    for (;;) {
      const payload = await reader.next();
      if (payload === undefined) throw corrupt(`Snapshot file ${name} ends before its end frame; snapshots are renamed into place only once complete.`, name);
      const frame = parse<{ nodes?: NodeRecord[]; edges?: EdgeRecord[]; end?: { nodes: number; edges: number } }>(payload, name);
      if (frame.nodes !== undefined) {
        nodes += frame.nodes.length;
        yield { kind: 'nodes', nodes: frame.nodes };
      } else if (frame.edges !== undefined) {
        edges += frame.edges.length;
        yield { kind: 'edges', edges: frame.edges };
      } else if (frame.end !== undefined) {
        if (frame.end.nodes !== nodes || frame.end.edges !== edges) {
          throw corrupt(`Snapshot file ${name} holds ${nodes} nodes and ${edges} edges but its end frame says ${frame.end.nodes} and ${frame.end.edges}.`, name);
        }
        if ((await reader.next()) !== undefined) throw corrupt(`Snapshot file ${name} has data after its end frame.`, name);
        return;
      } else {
        throw corrupt(`Snapshot file ${name} holds a frame that is neither nodes, edges nor the end.`, name);
      }
    }
  } finally {
    await handle.close();
  }
}
