import { Catalogue } from './catalogue.ts';
import { loadStaticCatalogue } from './static-catalogue.ts';

export interface StaticCatalogueOptions {
  /** Public base URL the manifest URIs are built from. */
  publicBaseUrl: string;
  /** `generated/catalogue/catalogue.json` by default. */
  file?: string;
}

/** A catalogue holding the static sources built at codegen time (tool-server OpenAPI, graph SDL). */
export function createStaticCatalogue(options: StaticCatalogueOptions): Catalogue {
  const catalogue = new Catalogue({ publicBaseUrl: options.publicBaseUrl });
  for (const source of loadStaticCatalogue(options.file)) catalogue.putSource(source.record.name, source.entries);
  return catalogue;
}
