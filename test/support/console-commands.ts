/** The commands of a text's console blocks (lines starting with `$ `, continuation lines joined). */
export function consoleCommands(text: string): string[] {
  const commands: string[] = [];
  for (const block of text.split('```console').slice(1)) {
    for (const line of block.slice(0, block.indexOf('```')).split('\n')) {
      if (line.startsWith('$ ')) commands.push(line.slice(2));
      else if (line.startsWith('    ') && commands.length > 0) commands[commands.length - 1] += line;
    }
  }
  return commands;
}
