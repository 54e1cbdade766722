import { Catalogue } from './catalogue.ts';
import { loadStaticCatalogue } from './static-catalogue.ts';

export interface StaticCatalogueOptions {
  /** Public base URL the manifest URIs are built from. */
  publicBaseUrl: string;
  /** `generated/catalogue/catalogue.json` by default. */
  file?: string;
  /** Operations left out: their routes are not served by this build, so they are not published. */
  withoutOperations?: ReadonlySet<string>;
}

/** A catalogue holding the static sources built at codegen time (tool-server OpenAPI, graph SDL). */
export function createStaticCatalogue(options: StaticCatalogueOptions): Catalogue {
  const catalogue = new Catalogue({ publicBaseUrl: options.publicBaseUrl });
  const without = options.withoutOperations ?? new Set<string>();
  for (const source of loadStaticCatalogue(options.file)) {
    catalogue.putSource(source.record.name, source.entries.filter((entry) => !without.has(entry.manifest.operation)));
  }
  return catalogue;
}
