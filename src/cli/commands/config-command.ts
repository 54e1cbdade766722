import type { Command } from 'commander';
import { describeConfig, formatConfigTable } from '../../config/index.ts';
import { addSettingOptions } from '../setting-options.ts';
import type { CliIo } from '../cli-io.ts';
import { COMMAND_DESCRIPTIONS } from '../command-descriptions.ts';

export function registerConfigCommand(program: Command, io: CliIo): void {
  const command = program
    .command('config')
    .description(COMMAND_DESCRIPTIONS.config)
    .option('--json', 'Print JSON instead of a table');
  const resolveFrom = addSettingOptions(command);
  command.action((opts: Record<string, unknown>) => {
    const config = resolveFrom(opts);
    const rows = describeConfig(config);
    if (opts['json']) io.out(JSON.stringify({ configFile: config.configFile ?? null, settings: rows }, null, 2));
    else {
      io.out(`config file: ${config.configFile ?? '(none)'}`);
      io.out(formatConfigTable(rows));
    }
  });
}
