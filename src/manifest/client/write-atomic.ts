import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so readers see the old content or the whole new content, never a part: a temporary
 * file in the same directory (same file system), flushed, then renamed over the target. On any
 * failure the temporary file is removed and the target is untouched. `durable: false` skips the
 * fsync, for files whose readers verify them anyway (the content-addressed schema cache): after a
 * crash such a file may be empty or torn, never silently trusted.
 */
export async function writeFileAtomic(path: string, data: Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(data);
      if (options.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
