import ts from 'typescript';
import { stableJsonText } from '../../src/manifest/stable-json.ts';

export const formatJson = stableJsonText;

/**
 * Re-prints JavaScript/TypeScript through the TypeScript printer: ajv's standalone output is one long line,
 * and a printed form keeps diffs of generated validators readable. The printer is deterministic.
 */
export function prettyPrintScript(code: string): string {
  const source = ts.createSourceFile('generated.ts', code, ts.ScriptTarget.ES2023, false, ts.ScriptKind.TS);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed, removeComments: false });
  return printer.printFile(source);
}

/** LF line endings, no trailing blanks, exactly one final newline: the last normalisation of every text output. */
export function normaliseText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((line) => line.replace(/[ \t]+$/, ''));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
