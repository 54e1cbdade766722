/** One file a codegen step produces: its path inside the output folder and the specs it was derived from. */
export interface GeneratedFile {
  /** POSIX path relative to the output folder, e.g. `validators/schema-manifest.ts`. */
  path: string;
  /** Repository-relative POSIX paths of the sources, named in the header. */
  sources: readonly string[];
  content: string;
}
