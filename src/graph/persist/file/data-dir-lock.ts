import { link, open, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostname } from 'node:os';
import { ToolgraphError } from '../../../errors/index.ts';

export interface DataDirLock {
  readonly path: string;
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

/**
 * Takes the data directory's exclusive lock: a file created with O_EXCL holding our pid, so two
 * processes never append to the same log. A lock whose pid is dead on this host is stale and taken
 * over; one from another host (a shared disk) is never presumed dead.
 */
export async function acquireDataDirLock(path: string): Promise<DataDirLock> {
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 40; attempt++) {
    if (await tryCreate(path, me)) return { path, release: () => releaseLock(path) };
    const owner = await readOwner(path);
    if (owner === 'missing') continue;
    if (owner === 'unreadable' && await isRecent(path)) {
      // Its owner may be between creating and writing it: give it a moment before calling it stale.
      await sleep(50);
      continue;
    }
    if (owner !== 'unreadable' && (owner.host !== me.host || isAlive(owner.pid))) {
      throw new ToolgraphError('TG_STORAGE_FAILED',
        `The data directory is locked by process ${owner.pid} on ${owner.host} (since ${owner.since}): ` +
        `only one toolgraph process may use it. Stop that process, or remove ${path} if it is not running.`,
        { details: { lockFile: path, pid: owner.pid, host: owner.host } });
    }
    await takeOverStale(path, owner);
  }
  throw new ToolgraphError('TG_STORAGE_FAILED', `Could not take the data directory lock ${path}: it keeps changing hands.`);
}

async function tryCreate(path: string, me: LockOwner): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new ToolgraphError('TG_STORAGE_FAILED', `Could not create the data directory lock ${path}.`, { cause: error });
  }
  try {
    await handle.writeFile(JSON.stringify(me));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

async function readOwner(path: string): Promise<LockOwner | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw new ToolgraphError('TG_STORAGE_FAILED', `Could not read the data directory lock ${path}.`, { cause: error });
  }
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (typeof owner.pid === 'number' && typeof owner.host === 'string') {
      return { pid: owner.pid, host: owner.host, since: String(owner.since ?? 'an unknown time') };
    }
  } catch {
    // A crash between creating the lock and writing it leaves it empty: nobody holds it.
  }
  return 'unreadable';
}

async function isRecent(path: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs < 2_000;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves the stale lock aside with one atomic rename, so of two processes racing for it only one
 * wins; if what we moved turns out to be a fresh lock, it is linked back.
 */
async function takeOverStale(path: string, stale: LockOwner | 'unreadable'): Promise<void> {
  const aside = `${path}.stale-${process.pid}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new ToolgraphError('TG_STORAGE_FAILED', `Could not remove the stale data directory lock ${path}.`, { cause: error });
  }
  const moved = await readOwner(aside);
  const same = stale === 'unreadable' ? moved === 'unreadable'
    : typeof moved === 'object' && moved.pid === stale.pid && moved.host === stale.host && moved.since === stale.since;
  if (!same) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

async function releaseLock(path: string): Promise<void> {
  const owner = await readOwner(path);
  if (typeof owner === 'object' && owner.pid === process.pid && owner.host === hostname()) {
    await unlink(path).catch(() => undefined);
  }
}
