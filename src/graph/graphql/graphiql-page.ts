import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createCompressedPage, type CompressedPage } from '../../http/index.ts';

/**
 * Names the tab after the graph in the page's path. GraphiQL itself posts to the page's own path
 * when given no endpoint, so one page serves every graph: rendered and compressed once, and its
 * bytes never name a graph (a refused graph's page cannot differ from an allowed one's).
 */
const TITLE_SCRIPT = "<script>document.title = 'toolgraph: ' + decodeURIComponent(location.pathname.split('/')[2] || '');</script>";
const ROOT = '<div id="root"></div>';

/**
 * GraphiQL, bundled (no CDN): 8.6 MiB of HTML, sent br- or gzip-compressed (about 1.9 MiB with br)
 * with a strong ETag. `private`: it is only sent after the request's authentication and the graph's
 * access check, so shared caches must not keep it; `no-cache`: every load revalidates, so a revoked
 * token or a hidden graph takes effect at once, and an unchanged page costs a 304 with no body.
 */
export function createGraphiqlPage(): CompressedPage {
  return createCompressedPage({
    contentType: 'text/html; charset=utf-8',
    cacheControl: 'private, no-cache',
    render: () => {
      const html = renderGraphiQL({ title: 'toolgraph', defaultQuery: '{\n  __typename\n}\n' });
      const root = html.indexOf(ROOT);
      if (root < 0) throw new Error('@graphql-yoga/render-graphiql no longer renders <div id="root">; update graphiql-page.ts');
      const end = root + ROOT.length;
      return html.slice(0, end) + TITLE_SCRIPT + html.slice(end);
    },
  });
}
