// Rewrites the generated tables of README.md (configuration, error codes) from the code that defines them.
// `node scripts/docs/readme-tables.ts --check` fails when README.md is out of date (a test runs it too),
// and both forms fail when src/ or scripts/ read an environment variable that is neither a row of the
// configuration table nor named in NOT_SETTINGS below (the table says it lists every setting).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS, defaultLabelOf, type SettingDef } from '../../src/config/index.ts';
import { ERROR_CODES, type ErrorCodeInfo } from '../../src/errors/index.ts';
import { missingFeatureOfSetting } from '../../src/serve/features-not-in-build.ts';

const AREA = { general: 'general', A: 'A', B: 'B', C: 'C' } as const;

function code(text: string | undefined): string {
  return text ? `\`${text}\`` : '';
}

function defaultText(def: SettingDef<unknown, unknown>): string {
  const label = defaultLabelOf(def);
  if (label === undefined) return 'unset';
  return label.literal ? code(label.text) : label.text;
}

/**
 * Environment variables read outside SETTINGS (by one command each, not resolved with the settings):
 * rows of the configuration table all the same, since a reader looks for them there.
 */
export const COMMAND_ENV_VARS: readonly { env: string; flag?: string; expected: string; description: string }[] = [
  { env: 'TOOLGRAPH_URL', flag: '--url', expected: 'an absolute http(s) URL', description: 'Catalogue base URL that `toolgraph schema search` and `schema get` ask (default: the local server at http://HOST:PORT as configured); read by those commands only' },
  { env: 'TOOLGRAPH_SECRETS_FILE', flag: '--secrets-file', expected: 'a path to a JSON object of key → string or object', description: 'Seeds the in-memory secrets backend (it starts empty in every process) of `serve`, `tools serve` and `secret-manager`; the flag is secret-manager\'s only' },
  { env: 'TOOLGRAPH_ID_TOKEN_FILE', flag: '--id-token-file', expected: 'a path to a file holding a JWT', description: 'The caller\'s IdP token for `secret-manager`\'s OIDC/JWT store auth (the flag is secret-manager\'s; before TOOLGRAPH_ID_TOKEN, then the session of `secret-manager login`)' },
  { env: 'TOOLGRAPH_ID_TOKEN', expected: 'a JWT', description: 'The caller\'s IdP token itself, for `secret-manager` when neither --id-token-file nor TOOLGRAPH_ID_TOKEN_FILE is given' },
];

/** Environment variables the code reads that are not settings of toolgraph, each with why. */
export const NOT_SETTINGS: Readonly<Record<string, string>> = {
  HOME: 'the user\'s home, for the XDG defaults',
  PATH: 'passed on to child processes by scripts',
  XDG_CONFIG_HOME: 'XDG base directory: config.json\'s default place',
  XDG_DATA_HOME: 'XDG base directory, shown in the TOOLGRAPH_DATA_DIR default',
  XDG_CACHE_HOME: 'XDG base directory, shown in the TOOLGRAPH_CACHE_DIR default',
  XDG_STATE_HOME: 'XDG base directory, shown in the TOOLGRAPH_STATE_DIR and TOOLGRAPH_AUDIT_LOG defaults',
  TEST_DATABASE_URL: 'tests and benchmarks only: the PostgreSQL they use (README, docs/persistence.md)',
  SNAPSHOT_BENCH_NODES: 'the snapshot benchmark only (docs/persistence.md)',
  SNAPSHOT_BENCH_ROUNDS: 'the snapshot benchmark only (docs/persistence.md)',
  TOOLGRAPH_TCK_FEATURES: 'the TCK runner only (docs/tck.md)',
};

/** The ways this code reads a variable by name (shown lower-case here): process.env.name, env.name, env['name'], a helper's (env, 'name'), { name } = process.env. */
const ENV_READS = [
  /\benv\??\.([A-Z_][A-Z0-9_]*)\b/g,
  /\benv\??\.?\[\s*['"`]([A-Z_][A-Z0-9_]*)['"`]\s*\]/g,
  /\benv,\s*['"`]([A-Z_][A-Z0-9_]*)['"`]/g,
];
const DESTRUCTURED = /\{([^{}]*)\}\s*=\s*process\.env\b/g;

/** Every environment variable name `source` reads literally. */
export function envVarsRead(source: string): Set<string> {
  const names = new Set<string>();
  for (const pattern of ENV_READS) for (const m of source.matchAll(pattern)) names.add(m[1]!);
  for (const m of source.matchAll(DESTRUCTURED)) {
    for (const part of m[1]!.split(',')) {
      const name = /^\s*([A-Z_][A-Z0-9_]*)\b/.exec(part)?.[1];
      if (name) names.add(name);
    }
  }
  return names;
}

/** The table's env vars: each setting's, and the commands' own. */
export function tableEnvVars(): Set<string> {
  const names = new Set(COMMAND_ENV_VARS.map((row) => row.env));
  for (const def of Object.values(SETTINGS as Record<string, SettingDef<unknown, unknown>>)) if (def.env) names.add(def.env);
  return names;
}

/** Variables read in `dirs` (under `root`) that are neither in the table nor in NOT_SETTINGS, each with the files reading it. */
export function unlistedEnvVars(root: string, dirs: readonly string[] = ['src', 'scripts']): Map<string, string[]> {
  const listed = tableEnvVars();
  const unlisted = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|js|mjs)$/.test(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      for (const name of envVarsRead(readFileSync(path, 'utf8'))) {
        if (listed.has(name) || name in NOT_SETTINGS) continue;
        unlisted.set(name, [...(unlisted.get(name) ?? []), relative(root, path)]);
      }
    }
  }
  return unlisted;
}

export function configTable(): string {
  const rows = Object.entries(SETTINGS as Record<string, SettingDef<unknown, unknown>>).map(([name, def]) => {
    // `serve` refuses settings of features this build lacks (src/serve/features-not-in-build.ts).
    const missing = missingFeatureOfSetting(name);
    const note = missing === undefined ? '' : ` *(${missing.feature} is not in this build: \`serve\` refuses this setting${missing.offValue === undefined ? '' : ` unless it is ${String(missing.offValue)}`})*`;
    return `| ${AREA[def.area]} | ${code(def.env ?? def.envLabel)} | ${code(def.flag)} | ${code(def.configKey)} | ${defaultText(def)} | ${def.parser.expected.replace(/\|/g, '\\|')} | ${def.description}${def.secret ? ' (secret: redacted)' : ''}${note} |`;
  });
  const commandRows = COMMAND_ENV_VARS.map((row) => `| command | ${code(row.env)} | ${code(row.flag)} |  | unset | ${row.expected} | ${row.description} |`);
  return ['| area | env var | flag | config key | default | accepted values | meaning |', '|---|---|---|---|---|---|---|', ...rows, ...commandRows].join('\n');
}

export function errorTable(): string {
  const rows = Object.entries(ERROR_CODES as Record<string, ErrorCodeInfo>).map(([name, { status, meaning, reservedFor }]) =>
    `| \`${name}\` | ${status} | ${reservedFor === undefined ? '' : `*Reserved for ${reservedFor}, not in this build: nothing raises it yet.* `}${meaning} |`);
  return ['| code | HTTP status | meaning |', '|---|---|---|', ...rows].join('\n');
}

export function renderReadme(text: string): string {
  const replace = (input: string, marker: string, body: string) => {
    const pattern = new RegExp(`(<!-- ${marker}:start -->)[\\s\\S]*?(<!-- ${marker}:end -->)`);
    if (!pattern.test(input)) throw new Error(`README.md lacks the ${marker} markers`);
    return input.replace(pattern, (_m, start: string, end: string) => `${start}\n${body}\n${end}`);
  };
  return replace(replace(text, 'config-table', configTable()), 'error-table', errorTable());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = new URL('../../README.md', import.meta.url);
  const unlisted = unlistedEnvVars(fileURLToPath(new URL('../../', import.meta.url)));
  if (unlisted.size > 0) {
    for (const [name, files] of unlisted) process.stderr.write(`${name} is read (${files.join(', ')}) but is no row of the configuration table: define it in src/config, add it to COMMAND_ENV_VARS, or to NOT_SETTINGS with why (scripts/docs/readme-tables.ts)\n`);
    process.exit(1);
  }
  const current = readFileSync(path, 'utf8');
  const next = renderReadme(current);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      process.stderr.write('README.md tables are out of date; run `npm run docs`.\n');
      process.exit(1);
    }
  } else if (next !== current) {
    writeFileSync(path, next);
    process.stdout.write('README.md tables updated\n');
  }
}
