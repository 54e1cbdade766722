import { open } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Names of the files in the log directory. Sequence numbers count every record ever logged; a segment
 * is named after the sequence number of its first record, a snapshot after the createGraph record
 * that started the graph's incarnation (so a snapshot can never be mistaken for a later graph of the
 * same name).
 */
const SEGMENT = /^wal-(\d{16})\.log$/;
const SNAPSHOT = /^snap-(\d{16})\.snap$/;

export const LOCK_FILE = 'LOCK';

export function segmentFile(firstSeq: number): string {
  return `wal-${String(firstSeq).padStart(16, '0')}.log`;
}

export function snapshotFile(createdSeq: number): string {
  return `snap-${String(createdSeq).padStart(16, '0')}.snap`;
}

export function parseSegmentFile(name: string): number | undefined {
  const m = SEGMENT.exec(name);
  return m ? Number(m[1]) : undefined;
}

export function parseSnapshotFile(name: string): number | undefined {
  const m = SNAPSHOT.exec(name);
  return m ? Number(m[1]) : undefined;
}

export function isTempFile(name: string): boolean {
  return name.endsWith('.tmp');
}

/** Makes renames, creations and removals in `dir` durable (their directory entries are data too). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function pathIn(dir: string, name: string): string {
  return join(dir, name);
}
