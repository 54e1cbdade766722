import { Option, type Command } from 'commander';
import { SETTINGS, type SettingDef, type SettingName } from '../config/index.ts';

/**
 * Adds one commander option per setting that has a CLI flag, and returns a function that maps the
 * parsed options back to setting names (commander names `--store-auth` as `storeAuth`).
 */
export function addSettingOptions(command: Command): (opts: Record<string, unknown>) => Partial<Record<SettingName, unknown>> {
  const byAttribute = new Map<string, SettingName>();
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, SettingDef<unknown, unknown>][]) {
    if (!def.flag) continue;
    const isBoolean = def.parser.expected.startsWith('a boolean');
    const option = new Option(isBoolean ? `${def.flag} [value]` : `${def.flag} <value>`, `${def.description}${def.env ? ` (env ${def.env})` : ''}`);
    command.addOption(option);
    byAttribute.set(option.attributeName(), name);
  }
  command.addOption(new Option('--config <file>', 'Read this config.json instead of $XDG_CONFIG_HOME/toolgraph/config.json'));
  return (opts) => {
    const flags: Partial<Record<SettingName, unknown>> = {};
    for (const [attribute, name] of byAttribute) {
      if (opts[attribute] !== undefined) flags[name] = opts[attribute];
    }
    return flags;
  };
}
