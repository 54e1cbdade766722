import { SETTINGS, type SettingDef, type SettingName } from './settings.ts';
import type { ResolvedConfig, SettingSource } from './resolve-config.ts';

export interface SettingRow {
  name: SettingName;
  env: string | undefined;
  flag: string | undefined;
  configKey: string | undefined;
  value: string;
  source: SettingSource;
}

const HIDDEN = '[REDACTED]';

function show(value: unknown, secret: SettingDef<unknown, unknown>['secret']): string {
  if (value === undefined) return '(unset)';
  if (secret === 'whole') return HIDDEN;
  if (typeof value === 'object' && value !== null && 'host' in value && 'port' in value) {
    const { host, port } = value as { host: string; port: number };
    return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  }
  const text = String(value);
  if (secret === 'url-password' && URL.canParse(text)) {
    const url = new URL(text);
    if (url.password) url.password = HIDDEN;
    return url.toString();
  }
  return text;
}

/** The resolved settings as rows for `toolgraph config`, secrets redacted. */
export function describeConfig(config: ResolvedConfig): SettingRow[] {
  return (Object.entries(SETTINGS) as [SettingName, SettingDef<unknown, unknown>][]).map(([name, def]) => ({
    name,
    env: def.env,
    flag: def.flag,
    configKey: def.configKey,
    value: def.display ? def.display(config.values[name]) : show(config.values[name], def.secret),
    source: config.sources[name],
  }));
}

/**
 * How docs and help show a setting's default: its value (`literal`), or the label of a default computed
 * from the environment (`$XDG_DATA_HOME/toolgraph`); undefined when the setting has none.
 */
export function defaultLabelOf(def: SettingDef<unknown, unknown>): { text: string; literal: boolean } | undefined {
  if (def.default === undefined) return undefined;
  if (typeof def.default === 'function') return { text: def.defaultLabel ?? 'computed at start-up', literal: false };
  if (def.defaultLabel !== undefined) return { text: def.defaultLabel, literal: false };
  return { text: String(def.default), literal: true };
}

export function formatConfigTable(rows: readonly SettingRow[]): string {
  const header = ['setting', 'value', 'source', 'env', 'flag', 'config key'];
  const body = rows.map((r) => [r.name, r.value, r.source, r.env ?? '', r.flag ?? '', r.configKey ?? '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
