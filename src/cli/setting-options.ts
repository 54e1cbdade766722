import { Option, type Command } from 'commander';
import { SETTINGS, resolveConfig, type ResolvedConfig, type SettingDef, type SettingName } from '../config/index.ts';

/**
 * Adds one commander option per setting that has a CLI flag, plus `--config`, and returns the
 * function that resolves the whole configuration from the parsed options (commander names
 * `--store-auth` as `storeAuth`, so flags are mapped back to setting names first).
 */
export function addSettingOptions(command: Command): (opts: Record<string, unknown>, env?: NodeJS.ProcessEnv) => ResolvedConfig {
  const byAttribute = new Map<string, SettingName>();
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, SettingDef<unknown, unknown>][]) {
    if (!def.flag) continue;
    const isBoolean = def.parser.expected.startsWith('a boolean');
    const env = def.env ?? def.envLabel;
    const option = new Option(isBoolean ? `${def.flag} [value]` : `${def.flag} <value>`, `${def.description}${env ? ` (env ${env})` : ''}`);
    // A repeatable flag collects its values in command-line order.
    if (def.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(option);
    byAttribute.set(option.attributeName(), name);
  }
  command.addOption(new Option('--config <file>', 'Read this config.json instead of $XDG_CONFIG_HOME/toolgraph/config.json'));
  return (opts, env) => {
    const flags: Partial<Record<SettingName, unknown>> = {};
    for (const [attribute, name] of byAttribute) {
      if (opts[attribute] !== undefined) flags[name] = opts[attribute];
    }
    const configFile = typeof opts['config'] === 'string' ? opts['config'] : undefined;
    return resolveConfig({ flags, ...(env ? { env } : {}), ...(configFile ? { configFile } : {}) });
  };
}
