import { open, rename, unlink } from 'node:fs/promises';
import { syncDirectory } from './log-files.ts';

/** The calls the file adapter's write path makes on an open file. `node:fs/promises`' FileHandle has them all. */
export interface LogFileHandle {
  write(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  /** fdatasync: the data (and the size) is durable once it resolves. */
  datasync(): Promise<void>;
  /** fsync: data and metadata. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The filesystem as the file adapter writes it: a seam, so tests can watch (and fail) every write and
 * sync and so pin the order write → fdatasync → acknowledge. Recovery reads through `node:fs` directly.
 */
export interface LogFileSystem {
  open(path: string, flags: 'wx' | 'w' | 'r+', mode?: number): Promise<LogFileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Makes creations, renames and removals in `dir` durable. */
  syncDirectory(dir: string): Promise<void>;
}

/** Writes all of `data` from offset 0 and fsyncs it, then closes the handle (closed on failure too). */
export async function writeAllAndSync(handle: LogFileHandle, data: Buffer): Promise<void> {
  try {
    let written = 0;
    while (written < data.length) written += (await handle.write(data, written, data.length - written, written)).bytesWritten;
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The real filesystem. */
export const nodeLogFileSystem: LogFileSystem = {
  open: (path, flags, mode) => open(path, flags, mode),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  syncDirectory,
};
