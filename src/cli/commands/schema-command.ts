import { isIP } from 'node:net';
import type { Command } from 'commander';
import type { ResolvedConfig } from '../../config/index.ts';
import { ToolgraphError, isToolgraphError } from '../../errors/index.ts';
import { DEFAULT_CONCURRENCY, DEFAULT_RETRIES } from '../../manifest/constants.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';
import { CATALOGUE_SETTINGS, SCHEMA_GET_SETTINGS } from '../command-settings.ts';
import { withHint } from '../error-hints.ts';
import { createProgressBar, formatBytes, type ProgressBar } from '../progress-bar.ts';
import { addSettingOptions } from '../setting-options.ts';

function integerOption(name: string, min: number, max: number): (raw: string) => number {
  return (raw) => {
    const value = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= min && value <= max)) throw new ToolgraphError('TG_BAD_REQUEST', `${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}.`);
    return value;
  };
}

const URL_HELP = 'catalogue base URL (env TOOLGRAPH_URL; default: the local server, http://HOST:PORT as configured)';

/** The catalogue's URL and where it came from, for the hint when nothing answers there. */
interface CatalogueUrl {
  url: string;
  from: '--url' | 'TOOLGRAPH_URL' | 'local';
}

/**
 * The catalogue URL: --url, else env TOOLGRAPH_URL, else the local server where `serve` with the same
 * settings listens (HOST and PORT by flag, env or config.json; a wildcard bind address is reached on
 * loopback).
 */
function catalogueUrl(opts: { url?: string }, config: ResolvedConfig): CatalogueUrl {
  if (opts.url !== undefined && opts.url !== '') return { url: opts.url, from: '--url' };
  const fromEnv = process.env['TOOLGRAPH_URL'];
  if (fromEnv !== undefined && fromEnv !== '') return { url: fromEnv, from: 'TOOLGRAPH_URL' };
  const { host, port } = config.values;
  if (port === 0) {
    throw new ToolgraphError('TG_CONFIG_INVALID', 'PORT is 0 (the server picks a free port at each start), so the local catalogue cannot be found: give --url or TOOLGRAPH_URL.');
  }
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return { url: `http://${isIP(reachable) === 6 ? `[${reachable}]` : reachable}:${port}`, from: 'local' };
}

/**
 * After the retries ran out without an answer (a refused connection, an unknown host, a timeout; not
 * an HTTP status), says how to get a catalogue there or how to point elsewhere.
 */
function unreachableHint(target: CatalogueUrl): (error: unknown) => string | undefined {
  return (error) => {
    if (!isToolgraphError(error) || error.code !== 'TG_FETCH_FAILED' || typeof error.details?.['attempts'] !== 'number' || / HTTP \d{3}\.$/.test(error.message)) return undefined;
    if (target.from === 'local') {
      return `no server answers at ${target.url}, where \`toolgraph serve\` listens with these settings: start it (\`npx toolgraph serve\` or \`npm start\`) in another terminal, or point at a running catalogue with --url URL or TOOLGRAPH_URL (--host and --port say where the local one listens)`;
    }
    return `no server answers at ${target.url} (from ${target.from === '--url' ? '--url' : 'env TOOLGRAPH_URL'}): check the URL, or start a local server (\`npx toolgraph serve\`) and leave ${target.from === '--url' ? '--url' : 'TOOLGRAPH_URL'} out`;
  };
}

/**
 * `toolgraph schema search <q>` and `toolgraph schema get <operation|alias|digest>`: the verified-fetch
 * client of the schema catalogue (docs/catalogue.md). The client loads when one runs.
 */
export function registerSchemaCommand(program: Command, io: CliIo): void {
  const schema = program.command('schema').description(COMMAND_DESCRIPTIONS.schema);

  const search = schema
    .command('search')
    .description('Ranked search over operation names, aliases, descriptions and field names')
    .argument('<q>', 'search text')
    .option('--url <url>', URL_HELP)
    .option('--limit <n>', 'most results, 1 to 100', integerOption('--limit', 1, 100), 10)
    .option('--json', 'print the JSON response');
  const configForSearch = addSettingOptions(search, { names: CATALOGUE_SETTINGS });
  search.action(async (query: string, opts: { url?: string; limit: number; json?: boolean }) => {
    const target = catalogueUrl(opts, configForSearch(opts));
    const { createSchemaClient } = await import('../../manifest/client/index.ts');
    const client = createSchemaClient({ url: target.url });
    const results = await withHint(() => client.search(query, opts.limit), unreachableHint(target)).finally(() => client.close());
    if (opts.json) {
      io.out(JSON.stringify({ results }, null, 2));
      return;
    }
    if (results.length === 0) {
      io.err('no matches');
      return;
    }
    for (const hit of results) {
      const text = hit.description.length > 80 ? `${hit.description.slice(0, 77)}...` : hit.description;
      io.out(`${hit.score.toFixed(2).padStart(8)}  ${hit.manifest.alias}  ${hit.manifest.operation}  ${hit.manifest.schema_sha256}  ${text}`);
    }
  });

  const get = schema
    .command('get')
    .description('Fetch a schema by operation, alias or schema_sha256, verify it, and print or write it')
    .argument('<name>', 'operation name, alias or schema digest')
    .option('--url <url>', URL_HELP)
    .option('--out <file>', 'write the verified canonical schema here (atomically) instead of stdout')
    .option('--concurrency <n>', `fragments fetched at once, 1 to 64 (default ${DEFAULT_CONCURRENCY})`, integerOption('--concurrency', 1, 64), DEFAULT_CONCURRENCY)
    .option('--retries <n>', `retries per request, 0 to 10 (default ${DEFAULT_RETRIES})`, integerOption('--retries', 0, 10), DEFAULT_RETRIES);
  // The settings bring --host, --port, --cache-dir and --config, resolved as for every command.
  const configForGet = addSettingOptions(get, { names: SCHEMA_GET_SETTINGS });
  get.action(async (name: string, opts: { url?: string; out?: string; concurrency: number; retries: number }) => {
    const config = configForGet(opts);
    const target = catalogueUrl(opts, config);
    const { createSchemaClient, writeFileAtomic } = await import('../../manifest/client/index.ts');
    const client = createSchemaClient({
      url: target.url,
      cacheDir: config.values.cacheDir,
      concurrency: opts.concurrency,
      retries: opts.retries,
    });
    // Drawn on stderr, and only when stderr is a terminal (createProgressBar checks).
    let bar: ProgressBar | undefined;
    const fetched = await withHint(() => client.get(name, {
      onManifest: (manifest) => {
        bar = createProgressBar({ label: manifest.alias, total: manifest.schema_bytes, format: formatBytes });
      },
      onProgress: (done) => bar?.update(done),
    }), unreachableHint(target)).finally(() => client.close());
    if (fetched.from === 'network') bar?.finish();
    // Written only once every check passed, so a failed get leaves nothing at --out.
    if (opts.out === undefined) {
      io.out(fetched.document.toString('utf8'));
    } else {
      await writeFileAtomic(opts.out, fetched.document);
      io.err(`${fetched.manifest.alias}: ${formatBytes(fetched.document.length)} verified (sha256 ${fetched.manifest.schema_sha256}, from ${fetched.from}) written to ${opts.out}`);
    }
  });
}
