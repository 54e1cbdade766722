import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface TreeDifference {
  /** In both trees with different bytes. */
  differ: string[];
  /** In the expected tree only (a generated file nobody committed). */
  missing: string[];
  /** In the actual tree only (a file codegen no longer writes, or one added by hand). */
  extra: string[];
}

/** Compares two folders file by file; paths are POSIX, relative, sorted. */
export async function compareTrees(expectedDir: string, actualDir: string): Promise<TreeDifference> {
  const [expected, actual] = await Promise.all([listFiles(expectedDir), listFiles(actualDir)]);
  const actualSet = new Set(actual);
  const expectedSet = new Set(expected);
  const differ: string[] = [];
  await Promise.all(
    expected.filter((f) => actualSet.has(f)).map(async (file) => {
      const [a, b] = await Promise.all([readFile(path.join(expectedDir, file)), readFile(path.join(actualDir, file))]);
      if (!a.equals(b)) differ.push(file);
    }),
  );
  return {
    differ: differ.sort(),
    missing: expected.filter((f) => !actualSet.has(f)),
    extra: actual.filter((f) => !expectedSet.has(f)),
  };
}

export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}
