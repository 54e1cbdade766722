/**
 * The line the CLI prints after an error's own message: what to do about it from here (start a
 * server, which flag points elsewhere). A command attaches it where it knows the context (which URL
 * came from where); the error itself stays as every other surface sees it.
 */
const hints = new WeakMap<object, string>();

/** Runs `work`; when it fails with an error `hintOf` has a hint for, that hint goes with the error to runCli. */
export async function withHint<T>(work: () => Promise<T>, hintOf: (error: unknown) => string | undefined): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const hint = hintOf(error);
    if (hint !== undefined && typeof error === 'object' && error !== null && !hints.has(error)) hints.set(error, hint);
    throw error;
  }
}

/** The hint a command attached to this error, if any. */
export function hintFor(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? hints.get(error) : undefined;
}
