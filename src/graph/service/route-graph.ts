/** The graph a `/graphs/{graph}/…` path names (the first group of `route`, percent-decoded), or undefined when the path is another or does not decode. */
export function graphInRoute(route: RegExp, path: string): string | undefined {
  const match = route.exec(path);
  if (match === null || match[1] === undefined) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}
