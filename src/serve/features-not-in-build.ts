import { SETTINGS, type ResolvedConfig, type SettingName } from '../config/index.ts';
import { ToolgraphError } from '../errors/index.ts';

/** A setting that configures a missing feature; its `offValue` (a switch in the off position) is harmless. */
interface FeatureSetting {
  readonly name: SettingName;
  readonly offValue?: string | boolean;
}

export interface MissingFeature {
  /** Also the `reservedFor` of the error codes only this feature will raise (src/errors/codes.ts). */
  readonly feature: string;
  /** Refused at start-up when set, so a setting never promises what is not there. */
  readonly settings: readonly FeatureSetting[];
  /** OpenAPI operationIds of its routes: the catalogue does not publish them. */
  readonly operations: readonly string[];
}

/**
 * Features the specification describes that this build does not have yet. The issue that builds
 * one deletes its row (and the `reservedFor` marks of its error codes); nothing else changes.
 */
export const FEATURES_NOT_IN_BUILD: readonly MissingFeature[] = [
  { feature: 'rate limits', settings: [], operations: [] },
];

/** The feature a setting belongs to, when that feature is missing (the README's configuration table says so). */
export function missingFeatureOfSetting(name: string): { feature: string; offValue?: string | boolean } | undefined {
  for (const row of FEATURES_NOT_IN_BUILD) {
    const setting = row.settings.find((s) => s.name === name);
    if (setting) return setting.offValue === undefined ? { feature: row.feature } : { feature: row.feature, offValue: setting.offValue };
  }
  return undefined;
}

export const UNSERVED_OPERATIONS: ReadonlySet<string> = new Set(FEATURES_NOT_IN_BUILD.flatMap((row) => row.operations));

function settingLabel(name: SettingName, config: ResolvedConfig): string {
  const def = SETTINGS[name] as { env?: string; flag?: string; configKey?: string };
  const source = config.sources[name];
  const from = source === 'flag' ? `flag ${def.flag}` : source === 'config' ? `config key ${def.configKey}` : 'env';
  return `${def.env ?? def.flag ?? def.configKey ?? name} (from ${from})`;
}

/**
 * Refuses start-up when a setting of a feature this build lacks is set, naming every such setting
 * with where it came from, so nobody runs believing a carrier, delegation or auth is in place.
 * `table` is this build's (a test may give its own).
 */
export function refuseSettingsOfMissingFeatures(config: ResolvedConfig, table: readonly MissingFeature[] = FEATURES_NOT_IN_BUILD): void {
  const problems: string[] = [];
  const features: string[] = [];
  let count = 0;
  for (const row of table) {
    const set = row.settings.filter((s) => config.sources[s.name] !== 'default' && (s.offValue === undefined || config.values[s.name] !== s.offValue));
    if (set.length === 0) continue;
    count += set.length;
    features.push(row.feature);
    problems.push(`${row.feature} is not in this build, so ${set.map((s) => settingLabel(s.name, config)).join(', ')} would do nothing`);
  }
  if (problems.length > 0) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `${problems.join('; ')}. Unset ${count === 1 ? 'it' : 'them'} to start.`, { details: { features } });
  }
}
