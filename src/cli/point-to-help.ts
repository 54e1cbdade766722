import type { Command } from 'commander';

/**
 * After an error (a typo'd flag, an unknown command, a missing argument), commander prints its own
 * line and the suggestion; then comes one line pointing to the command's own `--help`, not the whole
 * help, which would push the suggestion off the screen. Call it once every command is registered.
 */
export function pointToHelp(command: Command, path = command.name()): void {
  command.showHelpAfterError(`Run \`${path} --help\` for its usage.`);
  for (const sub of command.commands) pointToHelp(sub, `${path} ${sub.name()}`);
}
