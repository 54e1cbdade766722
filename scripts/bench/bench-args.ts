/** The value after `name` on the command line (`--rounds 5` → "5"), or undefined when absent. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
