/**
 * Waits for a condition rather than for a time: polls `check` every 5 ms and fails, naming `what`,
 * once `ms` have passed without it holding. For what a test cannot await directly (a follower
 * catching up, a refetch in the background).
 */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
