import { isUtf8 } from 'node:buffer';
import type { Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { ToolgraphError } from '../../errors/index.ts';

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/** The longest line read; a longer one is refused by line number instead of exhausting memory. */
const MAX_JSONL_LINE_BYTES = 64 * 1024 * 1024;

/** Called per line (without its newline); may return a promise, which is awaited before the next line. */
export type LineVisitor = (text: string, line: number) => void | Promise<void>;

export interface FileIdentity {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/**
 * A JSON Lines file opened for reading from the start as often as needed (the importer reads it twice:
 * to check it whole, then to commit it). Errors are TG_FILE_UNREADABLE naming the file.
 */
export class JsonlFile {
  readonly path: string;
  readonly #handle: FileHandle;
  readonly identity: FileIdentity;

  private constructor(path: string, handle: FileHandle, identity: FileIdentity) {
    this.path = path;
    this.#handle = handle;
    this.identity = identity;
  }

  /** Opens a regular file; a missing, unreadable or special file is TG_FILE_UNREADABLE. */
  static async open(path: string): Promise<JsonlFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      throw unreadable(path, error);
    }
    try {
      const identity = await identify(path, handle);
      return new JsonlFile(path, handle, identity);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** TG_FILE_UNREADABLE when the file changed (size, modification time or inode) since it was opened. */
  async assertUnchanged(): Promise<void> {
    const now = await identify(this.path, this.#handle);
    if (now.size !== this.identity.size || now.mtimeMs !== this.identity.mtimeMs || now.ino !== this.identity.ino) {
      throw new ToolgraphError('TG_FILE_UNREADABLE', `${this.path} changed while it was being imported (it was ${this.identity.size} bytes, now ${now.size}); import a file nobody writes to.`, { details: { file: this.path } });
    }
  }

  /**
   * Reads every line from the start, in order, with its 1-based number; a final line without a newline
   * counts. Bytes must be UTF-8 (TG_BAD_REQUEST naming the line otherwise); a leading byte-order mark
   * is dropped. `onBytes` gets the bytes read so far after each chunk.
   */
  async forEachLine(visit: LineVisitor, onBytes: (bytes: number) => void = () => undefined): Promise<number> {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    /** The pieces of a line that started in an earlier chunk (copied: `buffer` is reused). */
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let position = 0;
    let line = 0;
    // Synchronous unless the visitor returns a promise: an await per line would cost more than the parse.
    // `checked`: the bytes are already known to be UTF-8 (a newline byte never sits inside a UTF-8
    // sequence, so a run of whole lines is checked in one call, and each line only when that fails).
    const emit = (bytes: Buffer, start: number, end: number, checked: boolean): void | Promise<void> => {
      line++;
      if (!checked && !isUtf8(bytes.subarray(start, end))) {
        throw new ToolgraphError('TG_BAD_REQUEST', `${this.path}:${line}: not valid UTF-8.`, { details: { line } });
      }
      let text = bytes.toString('utf8', start, end);
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      return visit(text, line);
    };
    for (;;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await this.#handle.read(buffer, 0, CHUNK_BYTES, position));
      } catch (error) {
        throw unreadable(this.path, error);
      }
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = buffer.subarray(0, bytesRead);
      // The whole lines inside this chunk: from its start (or the end of a carried line) to its last newline.
      const wholeFrom = carryBytes > 0 ? data.indexOf(10) + 1 : 0;
      const wholeTo = data.lastIndexOf(10);
      const wholeUtf8 = isUtf8(data.subarray(wholeFrom, Math.max(wholeFrom, wholeTo)));
      let start = 0;
      for (let end = data.indexOf(10, start); end >= 0; end = data.indexOf(10, start)) {
        if (carryBytes > 0) {
          const whole = Buffer.concat([...carry, data.subarray(0, end)]);
          carry = [];
          carryBytes = 0;
          const pending = emit(whole, 0, whole.length, false);
          if (pending !== undefined) await pending;
        } else {
          const pending = emit(data, start, end, wholeUtf8);
          if (pending !== undefined) await pending;
        }
        start = end + 1;
      }
      if (start < data.length) {
        carryBytes += data.length - start;
        if (carryBytes > MAX_JSONL_LINE_BYTES) {
          throw new ToolgraphError('TG_BAD_REQUEST', `${this.path}:${line + 1}: the line is longer than ${MAX_JSONL_LINE_BYTES / 1024 / 1024} MiB.`, { details: { line: line + 1 } });
        }
        carry.push(Buffer.from(data.subarray(start)));
      }
      onBytes(position);
    }
    if (carryBytes > 0) {
      const whole = Buffer.concat(carry);
      const pending = emit(whole, 0, whole.length, false);
      if (pending !== undefined) await pending;
    }
    return line;
  }

  async close(): Promise<void> {
    await this.#handle.close().catch(() => undefined);
  }
}

async function identify(path: string, handle: FileHandle): Promise<FileIdentity> {
  let stats: Stats;
  try {
    stats = await handle.stat();
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!stats.isFile()) {
    const what = stats.isDirectory() ? 'a directory' : 'not a regular file';
    throw new ToolgraphError('TG_FILE_UNREADABLE', `${path} is ${what}; import reads a regular file (twice: it checks the whole file before the first commit), so save a stream to a file first.`, { details: { file: path } });
  }
  return { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
}

function unreadable(path: string, error: unknown): ToolgraphError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'does not exist'
    : code === 'EACCES' || code === 'EPERM' ? 'cannot be read (permission denied)'
    : code === 'EISDIR' ? 'is a directory'
    : `cannot be read (${code ?? (error as Error).message})`;
  return new ToolgraphError('TG_FILE_UNREADABLE', `${path} ${reason}.`, { details: { file: path, ...(code ? { errno: code } : {}) }, cause: error });
}
