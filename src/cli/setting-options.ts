import { Option, type Command } from 'commander';
import { SETTINGS, defaultLabelOf, resolveConfig, type ResolvedConfig, type SettingDef, type SettingName } from '../config/index.ts';

/** What a setting's flag says in help: what it is, its env var, its default and the values it takes. */
function settingFlagHelp(def: SettingDef<unknown, unknown>): string {
  const env = def.env ?? def.envLabel;
  const label = defaultLabelOf(def);
  const facts = [
    ...(env ? [`env ${env}`] : []),
    label === undefined ? 'unset by default' : `default ${label.text}`,
    `expects ${def.parser.expected}`,
  ];
  return `${def.description} (${facts.join('; ')})`;
}

/** Closes the help of a command that takes some settings as flags, not all. */
const OTHER_SETTINGS_HELP = `
Only the settings this command reads are flags here. Every setting also comes from its env var or
config.json ($XDG_CONFIG_HOME/toolgraph/config.json, or --config FILE): \`toolgraph config\` lists them
all, with their values and where each came from.`;

export interface SettingOptionsChoice {
  /** The settings offered as flags (those with a flag); `all` for commands that read every setting. */
  readonly names: readonly SettingName[] | 'all';
  /** Accepted but left out of the help (a secret a flag would show to every user of the machine). */
  readonly hidden?: readonly SettingName[];
}

/**
 * Adds one commander option per chosen setting that has a CLI flag, plus `--config`, and returns the
 * function that resolves the whole configuration from the parsed options (commander names
 * `--store-auth` as `storeAuth`, so flags are mapped back to setting names first). Settings that are
 * not flags here still resolve from env, config.json and their defaults.
 */
export function addSettingOptions(command: Command, choice: SettingOptionsChoice = { names: 'all' }): (opts: Record<string, unknown>, env?: NodeJS.ProcessEnv) => ResolvedConfig {
  const byAttribute = new Map<string, SettingName>();
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, SettingDef<unknown, unknown>][]) {
    if (!def.flag || (choice.names !== 'all' && !choice.names.includes(name))) continue;
    const isBoolean = def.parser.expected.startsWith('a boolean');
    const option = new Option(isBoolean ? `${def.flag} [value]` : `${def.flag} <value>`, settingFlagHelp(def));
    // A repeatable flag collects its values in command-line order.
    if (def.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    if (choice.hidden?.includes(name)) option.hideHelp();
    command.addOption(option);
    byAttribute.set(option.attributeName(), name);
  }
  command.addOption(new Option('--config <file>', 'Read this config.json instead of $XDG_CONFIG_HOME/toolgraph/config.json'));
  if (choice.names !== 'all') command.addHelpText('after', OTHER_SETTINGS_HELP);
  return (opts, env) => {
    const flags: Partial<Record<SettingName, unknown>> = {};
    for (const [attribute, name] of byAttribute) {
      if (opts[attribute] !== undefined) flags[name] = opts[attribute];
    }
    const configFile = typeof opts['config'] === 'string' ? opts['config'] : undefined;
    return resolveConfig({ flags, ...(env ? { env } : {}), ...(configFile ? { configFile } : {}) });
  };
}
