import { COMMAND_DESCRIPTIONS } from './command-descriptions.ts';
import { COMMANDS } from './command-table.ts';

/** What `toolgraph` is, as the top-level help's first paragraph says it. */
export const PROGRAM_DESCRIPTION = 'Verified tool-schema catalogue, SSO-protected MCP tool servers, and a federated GraphQL interface over a live property graph';

const HELP_DESCRIPTION = 'display help for command';
const OPTIONS: readonly (readonly [string, string])[] = [
  ['-V, --version', 'output the version number'],
  ['-h, --help', HELP_DESCRIPTION],
];
/** Below this many columns a description is not wrapped at all (commander's `minWidthToWrap`). */
const MIN_WIDTH_TO_WRAP = 40;
const ITEM_INDENT = 2;
const TERM_SPACER = 2;

/**
 * The top-level help, laid out as commander lays out the full program's (test/cli/top-level-help.test.ts
 * compares the two at many widths): usage, the description wrapped to `width`, the options and the
 * commands with their descriptions wrapped in a column after the longest term.
 */
export function topLevelHelp(width: number): string {
  const commands: [string, string][] = COMMANDS.map((entry) => [entry.term, COMMAND_DESCRIPTIONS[entry.name]]);
  commands.push(['help [command]', HELP_DESCRIPTION]);
  const termWidth = Math.max(...[...OPTIONS, ...commands].map(([term]) => term.length));
  const item = ([term, description]: readonly [string, string]): string => formatItem(term, termWidth, description, width);
  return [
    'Usage: toolgraph [options] [command]',
    '',
    wrapWords(PROGRAM_DESCRIPTION, width),
    '',
    'Options:',
    ...OPTIONS.map(item),
    '',
    'Commands:',
    ...commands.map(item),
  ].join('\n');
}

/** A term padded to the column, then its description wrapped in the space left and indented under it. */
function formatItem(term: string, termWidth: number, description: string, width: number): string {
  const indent = ' '.repeat(ITEM_INDENT);
  const column = width - termWidth - TERM_SPACER - ITEM_INDENT;
  const text = column < MIN_WIDTH_TO_WRAP ? description : wrapWords(description, column).replaceAll('\n', `\n${' '.repeat(termWidth + TERM_SPACER)}`);
  return indent + term.padEnd(termWidth) + ' '.repeat(TERM_SPACER) + text.replaceAll('\n', `\n${indent}`);
}

/**
 * Greedy word wrap: words (each with the spaces before it) join a line while it stays within `width`;
 * a word that does not fit starts the next line without its spaces. A single word longer than `width`
 * stays whole. Narrower than MIN_WIDTH_TO_WRAP, the text is left as it is.
 */
function wrapWords(text: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return text;
  const words = text.match(/\s*\S+/g) ?? [];
  const lines: string[] = [];
  let line = words[0] ?? '';
  for (const word of words.slice(1)) {
    if (line.length + word.length <= width) {
      line += word;
    } else {
      lines.push(line);
      line = word.trimStart();
    }
  }
  lines.push(line);
  return lines.join('\n');
}
