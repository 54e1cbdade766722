import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareTrees, type TreeDifference } from './compare-trees.ts';
import { generateAll, REPO_ROOT, writeGenerated } from './generate.ts';

export interface CheckOptions {
  /** Folder holding `specs/`, `codegen.ts` and the committed `generated/`; defaults to this repository. */
  root?: string;
}

export interface CheckResult extends TreeDifference {
  ok: boolean;
}

/** Regenerates into a temporary folder and compares it with `<root>/generated`. */
export async function checkGenerated(options: CheckOptions = {}): Promise<CheckResult> {
  const root = options.root ?? REPO_ROOT;
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolgraph-codegen-check-'));
  try {
    const fresh = path.join(scratch, 'generated');
    await writeGenerated(fresh, await generateAll({ root }));
    const difference = await compareTrees(fresh, path.join(root, 'generated'));
    const ok = difference.differ.length + difference.missing.length + difference.extra.length === 0;
    return { ok, ...difference };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The report codegen:check prints, one line per file. */
export function formatCheckResult(result: CheckResult): string {
  if (result.ok) return 'codegen:check: generated/ is up to date.';
  const lines = ['codegen:check: generated/ is out of date; run `npm run codegen` and commit the result.'];
  for (const file of result.differ) lines.push(`  differs: generated/${file}`);
  for (const file of result.missing) lines.push(`  missing: generated/${file}`);
  for (const file of result.extra) lines.push(`  extra:   generated/${file}`);
  return lines.join('\n');
}
