import { readFile } from 'node:fs/promises';
import { ToolgraphError } from '../../../errors/index.ts';
import { writeAllAndSync, type LogFileSystem } from './log-file-system.ts';
import { pathIn } from './log-files.ts';

/**
 * `LOG-HEAD`: a small file, replaced atomically whenever a new segment is started, that says how far
 * the log went: its newest segment, and the records and bytes of the segment sealed just before it.
 * It is what tells a deleted last segment (or a renamed sealed one) from a log that simply ends there;
 * the segments themselves are unchanged, so a store without it (written before it existed) reads as
 * before, and older versions ignore it. (It names no oldest segment: an older version compacting the
 * store would leave that stale, and a stale one would read as segments deleted by hand.)
 */
export const LOG_HEAD_FILE = 'LOG-HEAD';

export interface LogHead {
  /** Sequence number of the first record of the newest segment (its name). */
  readonly newest: number;
  /** The segment sealed when `newest` was started: all it will ever hold. */
  readonly sealed?: { readonly first: number; readonly records: number; readonly bytes: number };
}

const FORMAT = 1;

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** The stored head; undefined when there is none. An unreadable one is TG_STORAGE_CORRUPT. */
export async function readLogHead(dir: string): Promise<LogHead | undefined> {
  let text: string;
  try {
    text = await readFile(pathIn(dir, LOG_HEAD_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const unreadable = (): ToolgraphError => new ToolgraphError('TG_STORAGE_CORRUPT',
    `${LOG_HEAD_FILE} in ${dir} is not a log head written by toolgraph (it is replaced atomically, so this is not a torn write). ` +
    `Remove it to start without the check it carries (it is rewritten at start-up).`, { details: { file: LOG_HEAD_FILE } });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw unreadable();
  }
  const head = parsed as { format?: unknown; newest?: unknown; sealed?: { first?: unknown; records?: unknown; bytes?: unknown } };
  if (head.format !== FORMAT || !isCount(head.newest)) throw unreadable();
  if (head.sealed === undefined) return { newest: head.newest };
  const { first, records, bytes } = head.sealed;
  if (!isCount(first) || !isCount(records) || !isCount(bytes)) throw unreadable();
  return { newest: head.newest, sealed: { first, records, bytes } };
}

export function sameLogHead(a: LogHead | undefined, b: LogHead): boolean {
  return a !== undefined && a.newest === b.newest && a.sealed?.first === b.sealed?.first
    && a.sealed?.records === b.sealed?.records && a.sealed?.bytes === b.sealed?.bytes;
}

/** Replaces the head atomically: a temp file, fsynced, renamed over it, and the directory fsynced. */
export async function writeLogHead(fs: LogFileSystem, dir: string, head: LogHead): Promise<void> {
  const path = pathIn(dir, LOG_HEAD_FILE);
  const temp = `${path}.tmp`;
  const data = Buffer.from(`${JSON.stringify({ format: FORMAT, ...head })}\n`, 'utf8');
  await writeAllAndSync(await fs.open(temp, 'w', 0o600), data);
  await fs.rename(temp, path);
  await fs.syncDirectory(dir);
}
