// Rewrites the generated tables of README.md (configuration, error codes) from the code that defines them.
// `node scripts/docs/readme-tables.ts --check` fails when README.md is out of date (a test runs it too).
import { readFileSync, writeFileSync } from 'node:fs';
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

export function configTable(): string {
  const rows = Object.entries(SETTINGS as Record<string, SettingDef<unknown, unknown>>).map(([name, def]) => {
    // `serve` refuses settings of features this build lacks (src/serve/features-not-in-build.ts).
    const missing = missingFeatureOfSetting(name);
    const note = missing === undefined ? '' : ` *(${missing.feature} is not in this build: \`serve\` refuses this setting${missing.offValue === undefined ? '' : ` unless it is ${String(missing.offValue)}`})*`;
    return `| ${AREA[def.area]} | ${code(def.env ?? def.envLabel)} | ${code(def.flag)} | ${code(def.configKey)} | ${defaultText(def)} | ${def.parser.expected.replace(/\|/g, '\\|')} | ${def.description}${def.secret ? ' (secret: redacted)' : ''}${note} |`;
  });
  return ['| area | env var | flag | config key | default | accepted values | meaning |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
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
