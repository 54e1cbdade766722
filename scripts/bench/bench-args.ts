/** The value after `name` on the command line (`--rounds 5` → "5"), or undefined when absent. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * Settings given as `name K=V,K=V` (a suite's `--env`): a map, or exit 64 naming `suite` when a pair
 * has no name before its `=`.
 */
export function settingsArg(name: string, suite: string): Record<string, string> {
  return Object.fromEntries((arg(name) ?? '').split(',').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) {
      process.stderr.write(`${suite}: ${name} takes K=V pairs separated by commas; got ${JSON.stringify(pair)}\n`);
      process.exit(64);
    }
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));
}
